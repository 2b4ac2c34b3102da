# Runtime shared by every kaist-kit config: the kit's modules, hooks, logging, environment.
default_scope = "mmdet"
custom_imports = dict(imports=["kaist_kit.models"], allow_failed_imports=False)

default_hooks = dict(
    timer=dict(type="IterTimerHook"),
    logger=dict(type="LoggerHook", interval=50),
    param_scheduler=dict(type="ParamSchedulerHook"),
    # Keep the checkpoint with the lowest reasonable-all miss rate (KaistMetric's name for it).
    checkpoint=dict(type="CheckpointHook", interval=1, max_keep_ckpts=2, save_best="kaist/reasonable_all", rule="less"),
    sampler_seed=dict(type="DistSamplerSeedHook"),
)

env_cfg = dict(
    cudnn_benchmark=False, mp_cfg=dict(mp_start_method="fork", opencv_num_threads=0), dist_cfg=dict(backend="nccl")
)

log_processor = dict(type="LogProcessor", window_size=50, by_epoch=True)
log_level = "INFO"
load_from = None
resume = False

"""The application and its verbs. Each verb registers itself on the application as its module is
imported: the command imports only the module of the verb it runs (`load`), and all of them, in the
order of the pipeline, which is the order --help lists them in, when it lists them or names no verb
it knows."""

from importlib import import_module

# Each module of verbs, in the order of the pipeline, and the verbs (and groups of verbs) it registers.
MODULES = {
    "data": ("convert", "synth", "stats", "show"),
    "fetch": ("fetch",),
    "zoo": ("zoo",),
    "scoring": ("eval", "diagnose", "compare"),
    "submission": ("submit",),
    "training_data": ("trainset", "check-data"),
    "detectors": ("train", "test", "infer", "init-checkpoint"),
    "hosting": ("leaderboard", "host"),
    "demo": ("simulate", "demo"),
}


def load(args: list[str] | None = None):
    """The application with the verbs the command line ``args`` needs: the verb it names, none for
    `--version` alone, every verb otherwise (and when ``args`` is None)."""
    modules = list(MODULES)
    if args is not None:
        verb = next((arg for arg in args if not arg.startswith("-")), None)
        if verb is None and "--version" in args and "--help" not in args:
            modules = []
        else:
            modules = [module for module, verbs in MODULES.items() if verb in verbs] or modules
    for module in modules:
        import_module(f".{module}", __package__)
    from .app import app

    # Registered in the order their modules were first imported, which a process that imported one
    # earlier changes: put back in the pipeline's order.
    order = {verb: k for k, verb in enumerate(verb for verbs in MODULES.values() for verb in verbs)}
    app.registered_commands.sort(key=lambda info: order.get(info.name, len(order)))
    app.registered_groups.sort(key=lambda info: order.get(info.name, len(order)))
    return app


def __getattr__(name: str):
    if name == "app":  # `kaist_kit.cli.app`: the application with every verb
        return load()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

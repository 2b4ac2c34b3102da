"""The zoo: every public KAIST result file the kit knows, one `Entry` each.

A method's new file is one entry here: where it is (repository, commit, path, git object id and size,
as ``git ls-tree -l COMMIT PATH`` lists them), how it is read (a `Reading`), the licence its repository
states, and the kit's numbers on it, which `tests/test_zoo_real.py` checks against the file whenever a
copy of the files is at hand (``KAIST_KIT_ZOO_FILES``). ``kit`` stays empty for a file not at hand when
the table was made; ``kaist-kit eval zoo:NAME --protocol leaderboard --protocol matlab`` gives its numbers.
Numbers are the reasonable setting's log-average miss rates (%), all / day / night.
"""

from __future__ import annotations

from ..datasets import KAIST
from .specs import Entry, Pin, Quote, Reading

# The repositories, at the commits the files are pinned at.
ILLUMINATION = (
    "dayanguan/illumination-aware_multispectral_pedestrian_detection",
    "d58368bac4981930b6fb95cfc2c1012eca4ed6e8",
)
MS_DETR = ("YinghuiXing/MS-DETR", "a726dcc0cd4de69a4b37ce510417684ecfd5c54a")
INSANET_FIRST = ("sejong-rcv/INSANet", "3a1f13c1af65800a0eef9b1765506d7ee4f93b13")
INSANET = ("sejong-rcv/INSANet", "167237ec2291eaadb16707ff226b4058b43eb818")
MLPD = ("sejong-rcv/MLPD-Multi-Label-Pedestrian-Detection", "8e583929a97b9f959634efa69174435ad0252a57")
MBNET = ("CalayZhou/MBNet", "18674e300d132c4431e69e5472c32108e37b0a1c")
CFR = ("zhanghengdev/CFR", "c8d2d0a9568a83516c10d1d71b11768351707fe4")
GAFF = ("zhanghengdev/GAFF", "30a86d2bf8465c0a65ec2c27e4096973edae7b15")
HENSOLDT = ("HensoldtOptronicsCV/MultispectralPedestrianDetection", "eb2f7914d2bde1f047d0f702e7da96ba2cc23e6d")
TFDET = ("XueZ-phd/TFDet", "6de94d42c9d09f1baf4323115fa11904d22cebe7")
UMPDP = ("gongyan1/UMPDP", "9c88c3a662aa450888a5125be4c8de0917227da4")
TASK_CONDITIONED = ("mrkieumy/task-conditioned", "be53eec1409932aeba59dd366471171fada3246b")

MLPD_STATE = "evaluation_script/state_of_arts/"
MS_DETR_STATE = "evaluation_script/state_of_arts/"
TFDET_STATE = "mmdetection/mr_evaluation_script/state_of_arts/"
TFDET_RUN = "mmdetection/runs/FasterRCNN_vgg16_channelRelation_dscSEFusion_similarityMax_1/epoch_/"

# The readings.
TXT = Reading("txt")  # the leaderboard's txt, or the devkit's aggregated det-test-all.txt: the same layout
COCO = Reading("coco")
PER_IMAGE = Reading("per-image")  # the devkit's per-image files, with the devkit aggregator's +1
DAY_TXT = Reading("txt", period="day")
NIGHT_TXT = Reading("txt", period="night")
FRAME_NAMED_JSON = Reading("coco", frame_ids=True)

# The quotes' sources.
MLPD_README = f"README of {MLPD[0]}@{MLPD[1][:7]}"
INSANET_README = f"README of {INSANET[0]}@{INSANET[1][:7]}"
TFDET_README = f"README of {TFDET[0]}@{TFDET[1][:7]}"

# The quirks several entries share.
DEVKIT_TXT = "the devkit's aggregated file: the leaderboard's txt layout, x and y already +1 (1-based pixels)"
NOT_AT_HAND = (
    "4 MiB or more: listed in its repository's tree, not in the snapshot the table was made from; pinned by "
    "the listing's blob id"
)
DAY_FILE = "day images alone (1,455), ids counted from 1 within them: the day part of the all file"
NIGHT_FILE = "night images alone (797), ids counted from 1 within them (id 1 is set09/V000/I00019)"


def pin(repo: tuple[str, str], path: str, object_id: str, size: int | None = None, files: int = 0) -> Pin:
    return Pin(repo[0], repo[1], path, object_id, size, files)


def numbers(all_: float | None, day: float | None, night: float | None) -> tuple[float | None, ...]:
    return (all_, day, night)


ENTRIES: tuple[Entry, ...] = (
    Entry(
        "ACF",
        "ACF+C+T",
        "CVPR 2015",
        pin(MS_DETR, MS_DETR_STATE + "ACF_result.txt", "2fc52f90d73334d3f68796944f1919cf4bcb72f2"),
        TXT,
        "Apache-2.0",
        quirks=(NOT_AT_HAND,),
        quotes=(Quote(numbers(47.32, 42.57, 56.17), MLPD_README),),
        note="its .mat copy (read outside the kit, 239,379 detections) scores 47.32 / 42.65 / 56.17 with the "
        "leaderboard script and 47.32 / 42.57 / 56.17 with the devkit protocol: the quoted day is the devkit's",
        copies=(pin(ILLUMINATION, "dt-ACF+C+T.mat", "5015ba134f133286155f7d78f8c942b162f6d790", 3776078),),
    ),
    Entry(
        "Halfway-Fusion",
        "Halfway Fusion",
        "BMVC 2016",
        pin(MS_DETR, MS_DETR_STATE + "Halfway-Fusion_result.txt", "f82bd5b4798b24bd12187d032b5ee82b9dc88afc"),
        TXT,
        "Apache-2.0",
        quirks=(NOT_AT_HAND,),
        quotes=(Quote(numbers(25.75, 24.88, 26.59), MLPD_README),),
        note="its .mat copy (read outside the kit, 84,270 detections) scores 25.75 / 24.89 / 26.59 with the "
        "leaderboard script and 25.75 / 24.88 / 26.59 with the devkit protocol: the quoted day is the devkit's",
        copies=(pin(ILLUMINATION, "dt-Halfway_Fusion.mat", "5a7a603cc6e57059ba95f57429d0926c15c40c69", 2461339),),
    ),
    Entry(
        "Halfway-Fusion-INSANet",
        "Halfway Fusion (re-implemented)",
        "Sensors 2024",
        pin(
            INSANET_FIRST,
            "evaluation/state_of_arts/HalfwayFusion_result.txt.txt",
            "8e7ba53bcdf1a2f3604e0784301ae3feef5fd575",
            405323,
        ),
        TXT,
        "none stated at this commit (CC-BY-4.0 from 167237e on)",
        quirks=(
            "halfway fusion re-implemented on INSANet's backbone and training, not the BMVC 2016 model",
            "named .txt.txt; the file was removed from the repository after this commit",
        ),
        kit={"leaderboard": numbers(8.3134, 8.359, 8.2667), "matlab": numbers(8.3134, 8.359, 8.2667)},
        quotes=(Quote(numbers(8.31, 8.36, 8.27), INSANET_README),),
        drawn=False,
    ),
    Entry(
        "Fusion-RPN+BF",
        "Fusion RPN+BF",
        "CVPRW 2017",
        pin(MS_DETR, MS_DETR_STATE + "Fusion-RPN+BF_result.txt", "ad173438100669283b648c1aec14664df0f96acb", 2137596),
        TXT,
        "Apache-2.0",
        quirks=(
            "scores are not probabilities: -211.64 to 191.11 (the boosted forest's); the miss rates read only "
            "their order",
            "57,063 detections, the most of any entry",
        ),
        kit={"leaderboard": numbers(18.2878, 19.5655, 16.2662), "matlab": numbers(18.2878, 19.5655, 16.2662)},
        quotes=(Quote(numbers(18.29, 19.57, 16.27), MLPD_README),),
        copies=(
            pin(
                HENSOLDT,
                "CVPRW2017/CVPR2017_Koenig_FusionRPNBF_Detections_KAIST_Reasonable.mat",
                "3ebb0cca8ccc41fc5d2c0b23674b972549e263f8",
                1036326,
            ),
            pin(ILLUMINATION, "dt-Fusion_RPN+BDT.mat", "3ebb0cca8ccc41fc5d2c0b23674b972549e263f8", 1036326),
        ),
    ),
    Entry(
        "FRPN-Sum+TSS",
        "FRPN-Sum+TSS",
        "Appl. Opt. 2018",
        pin(ILLUMINATION, "dt-FRPN-Sum+TSS.mat", "0d8c3695a28bc2cc725152285d9aad3559d0ed3a", 61680),
        None,
        "none stated",
        refused="the file committed as dt-FRPN-Sum+TSS.mat is an HTML page (GitHub's), not detections",
    ),
    Entry(
        "IATDNN+IAMSS",
        "IATDNN+IAMSS",
        "Inf. Fusion 2019",
        pin(MS_DETR, MS_DETR_STATE + "IATDNN-IAMSS_result.txt", "eb18266e95f11451e9a9350049257ecd08091325", 516269),
        TXT,
        "Apache-2.0",
        kit={"leaderboard": numbers(14.4543, 14.1758, 15.2833), "matlab": numbers(14.9521, 14.67, 15.7157)},
        quotes=(Quote(numbers(14.95, 14.67, 15.72), MLPD_README),),
        note="MLPD's table, whose other rows are the leaderboard script's, quotes the devkit's numbers here",
        copies=(pin(ILLUMINATION, "dt-IATDNN+IAMSS.mat", "a6d8265fd47f8c82d98c6d75ddcca0c0b865c344", 187391),),
    ),
    Entry(
        "IAF-RCNN",
        "IAF R-CNN",
        "PR 2019",
        pin(MS_DETR, MS_DETR_STATE + "IAF-RCNN_result.txt", "0f16d412ece2075970e9a39a19651b5bced3e52f"),
        TXT,
        "Apache-2.0",
        quirks=(NOT_AT_HAND,),
        quotes=(Quote(numbers(15.73, 14.55, 18.26), MLPD_README),),
    ),
    Entry(
        "MSDS-RCNN",
        "MSDS-RCNN",
        "BMVC 2018",
        pin(MLPD, MLPD_STATE + "MSDS-RCNN_result.txt", "fdbb38713d0ae52b5136ab638c03e967efd56524", 668131),
        TXT,
        "none stated",
        quirks=("scores written with eight decimals: 8,722 of its 13,547 detections read 0.00000000",),
        kit={"leaderboard": numbers(11.3361, 10.54, 12.9386), "matlab": numbers(11.3361, 10.5325, 12.9386)},
        quotes=(Quote(numbers(11.34, 10.53, 12.94), MLPD_README),),
        note="the quoted day is the devkit's (10.53); the leaderboard script gives 10.54 on the same file",
    ),
    Entry(
        "CIAN",
        "CIAN",
        "Inf. Fusion 2019",
        pin(MLPD, MLPD_STATE + "CIAN_result.txt", "10eece2335c7cc08dc8bb85da0d4996ddf72ac97"),
        TXT,
        "none stated",
        quirks=(NOT_AT_HAND,),
        quotes=(Quote(numbers(14.12, 14.77, 11.13), MLPD_README),),
    ),
    Entry(
        "AR-CNN",
        "AR-CNN",
        "ICCV 2019",
        pin(MLPD, MLPD_STATE + "ARCNN_result.txt", "6a778f779a80d8fc7f7b5449a19c9ba75df71eae"),
        TXT,
        "none stated",
        quirks=(NOT_AT_HAND,),
        quotes=(Quote(numbers(9.34, 9.94, 8.38), MLPD_README), Quote(numbers(9.34, 9.94, 8.38), TFDET_README)),
    ),
    Entry(
        "MBNet",
        "MBNet",
        "ECCV 2020",
        pin(MLPD, MLPD_STATE + "MBNet_result.txt", "824927df5fea408799dfdce66c2346bb72332afe", 640996),
        TXT,
        "none stated",
        quirks=("the copy in MLPD's repository, the run papers quote; not the file of MBNet's own repository",),
        kit={"leaderboard": numbers(8.1295, 8.2819, 7.8577), "matlab": numbers(8.1295, 8.2759, 7.8577)},
        quotes=(Quote(numbers(8.13, 8.28, 7.86), MLPD_README), Quote(numbers(8.13, 8.28, 7.86), TFDET_README)),
    ),
    Entry(
        "MBNet-authors",
        "MBNet (authors' file)",
        "ECCV 2020",
        pin(MBNET, "data/result-test-all.txt", "7679d60ece56c55dd1786c0395c0261c573af2b6", 596681),
        TXT,
        "none stated",
        quirks=(
            DEVKIT_TXT,
            "another run than the MBNet file papers quote (MLPD's copy, zoo:MBNet): 12,047 detections, not 12,937",
        ),
        kit={"leaderboard": numbers(7.9287, 8.2085, 7.8919), "matlab": numbers(8.011, 8.3354, 7.8919)},
        drawn=False,
    ),
    Entry(
        "MBNet-authors-per-image",
        "MBNet (authors' per-image files)",
        "ECCV 2020",
        pin(MBNET, "data/result", "b5ab2a3318b68d8ec2ed729204ca694dde3667ae", files=KAIST.test_images),
        PER_IMAGE,
        "none stated",
        quirks=(
            "the devkit's per-image files, person x1 y1 x2 y2 score with 0-based x1 y1: read with the devkit "
            "aggregator's +1 on x and y, which gives its aggregated file (zoo:MBNet-authors) exactly; as written "
            "(--no-devkit-shift) they score 8.40 / 8.61 / 8.27 (leaderboard)",
            "2,252 files, one a frame, downloaded one by one and pinned by the folder's tree id",
        ),
        kit={"leaderboard": numbers(7.9287, 8.2085, 7.8919), "matlab": numbers(8.011, 8.3354, 7.8919)},
        drawn=False,
    ),
    Entry(
        "MBNet-authors-day",
        "MBNet (authors' day file)",
        "ECCV 2020",
        pin(MBNET, "data/result-test-day.txt", "ee4046910b80ae9db2f9455a3cc63a15190bd60c", 413640),
        DAY_TXT,
        "none stated",
        quirks=(DAY_FILE,),
        kit={"leaderboard": numbers(None, 8.2085, None), "matlab": numbers(None, 8.3354, None)},
    ),
    Entry(
        "MBNet-authors-night",
        "MBNet (authors' night file)",
        "ECCV 2020",
        pin(MBNET, "data/result-test-night.txt", "56179c2726987e21657459f0615fbd077b13abe9", 179155),
        NIGHT_TXT,
        "none stated",
        quirks=(NIGHT_FILE,),
        kit={"leaderboard": numbers(None, None, 7.8919), "matlab": numbers(None, None, 7.8919)},
    ),
    Entry(
        "CFR",
        "CFR",
        "ICIP 2020",
        pin(CFR, "CFR_Results/det-test-all.txt", "b693023c9c0760baccfb7558e403f56955092c7d", 2437713),
        TXT,
        "MIT",
        quirks=(DEVKIT_TXT, "one of ten runs; the paper quotes their mean"),
        kit={"leaderboard": numbers(5.9595, 7.7868, 2.395), "matlab": numbers(5.9595, 7.7724, 2.395)},
        quotes=(
            Quote(numbers(5.96, 7.77, 2.40), f"README of {CFR[0]}@{CFR[1][:7]}"),
            Quote(numbers(5.96, 7.77, 2.40), INSANET_README),
        ),
    ),
    Entry(
        "CFR-day",
        "CFR (day file)",
        "ICIP 2020",
        pin(CFR, "CFR_Results/det-test-day.txt", "c5a0912a6ccef04b07bbe9de45da77a0b655c514", 1569282),
        DAY_TXT,
        "MIT",
        quirks=(DAY_FILE,),
        kit={"leaderboard": numbers(None, 7.7868, None), "matlab": numbers(None, 7.7724, None)},
    ),
    Entry(
        "CFR-night",
        "CFR (night file)",
        "ICIP 2020",
        pin(CFR, "CFR_Results/det-test-night.txt", "c570e837a19ca1965b712c9bd6b8d32407b05c0c", 848521),
        NIGHT_TXT,
        "MIT",
        quirks=(NIGHT_FILE,),
        kit={"leaderboard": numbers(None, None, 2.395), "matlab": numbers(None, None, 2.395)},
    ),
    Entry(
        "GAFF",
        "GAFF",
        "WACV 2021",
        pin(GAFF, "GAFF_Results/det-test-all.txt", "1389b103293ae0e899250c67a12fcda883fb09b7", 519440),
        TXT,
        "MIT",
        quirks=(DEVKIT_TXT,),
        kit={"leaderboard": numbers(6.3831, 8.2487, 3.4593), "matlab": numbers(6.4756, 8.3534, 3.4593)},
        quotes=(
            Quote(numbers(6.48, 8.35, 3.46), f"README of {GAFF[0]}@{GAFF[1][:7]}"),
            Quote(numbers(6.48, 8.35, 3.46), INSANET_README),
        ),
        copies=(pin(MS_DETR, MS_DETR_STATE + "GAFF_result.txt", "1389b103293ae0e899250c67a12fcda883fb09b7", 519440),),
    ),
    Entry(
        "GAFF-day",
        "GAFF (day file)",
        "WACV 2021",
        pin(GAFF, "GAFF_Results/det-test-day.txt", "c0aee24d4ed8970443cae7ec8e864068008c041a", 372474),
        DAY_TXT,
        "MIT",
        quirks=(DAY_FILE,),
        kit={"leaderboard": numbers(None, 8.2487, None), "matlab": numbers(None, 8.3534, None)},
    ),
    Entry(
        "GAFF-night",
        "GAFF (night file)",
        "WACV 2021",
        pin(GAFF, "GAFF_Results/det-test-night.txt", "60dae192ba4656e4ee0f2e8960980b020ec7bdfb", 143824),
        NIGHT_TXT,
        "MIT",
        quirks=(NIGHT_FILE,),
        kit={"leaderboard": numbers(None, None, 3.4593), "matlab": numbers(None, None, 3.4593)},
    ),
    Entry(
        "MLPD",
        "MLPD",
        "RA-L 2021",
        pin(MLPD, MLPD_STATE + "MLPD_result.txt", "52cb4d3f2b77ad3bb1a3d7ff2728fd77d18936fc", 295136),
        TXT,
        "none stated",
        kit={"leaderboard": numbers(7.5756, 7.9637, 6.9476), "matlab": numbers(7.5756, 7.95, 6.9476)},
        quotes=(Quote(numbers(7.58, 7.95, 6.95), MLPD_README), Quote(numbers(7.58, 7.95, 6.95), INSANET_README)),
        note="the quoted day is the devkit's (7.95); the leaderboard script gives 7.96 on the same file",
    ),
    Entry(
        "MLPD-json",
        "MLPD (COCO JSON)",
        "RA-L 2021",
        pin(MLPD, MLPD_STATE + "MLPD_result.json", "699e5dc913f7d356333e3f01edbd076a24264abe", 1520653),
        COCO,
        "none stated",
        quirks=("the detections of zoo:MLPD as COCO result JSON: 0-based image ids, category_id written 1.0",),
        kit={"leaderboard": numbers(7.5756, 7.9637, 6.9476), "matlab": numbers(7.5756, 7.95, 6.9476)},
        drawn=False,
    ),
    Entry(
        "Fusion-CSPNet",
        "Fusion CSPNet",
        "BMVC 2020",
        pin(
            HENSOLDT,
            "BMVC2020/BMVC2020_Wolpert_FusionCSPNet_Detections_KAIST_Reasonable.txt",
            "9c5ac6ae38fc318e90be936ebc6f909de3cd8b30",
        ),
        None,
        "MIT",
        quirks=(NOT_AT_HAND, "blank-separated values, as its README says; an _All.txt beside it"),
        refused="its layout (blank-separated values) was not at hand to be checked, so no reading is pinned yet",
        copies=(
            pin(
                HENSOLDT,
                "BMVC2020/BMVC2020_Wolpert_FusionCSPNet_Detections_KAIST_All.txt",
                "54b36cfc1f206b7ef1f99a6fe95824a38384d134",
            ),
        ),
    ),
    Entry(
        "DCMNet",
        "DCMNet",
        "ACM MM 2022",
        pin(TFDET, TFDET_STATE + "DCMNet_result.txt", "f8884652cab368d1963ab61da79ce3a5082e159f", 345961),
        TXT,
        "Apache-2.0",
        kit={"leaderboard": numbers(5.7468, 6.3441, 4.5968), "matlab": numbers(5.8366, 6.4751, 4.5968)},
        quotes=(Quote(numbers(5.84, 6.48, 4.60), TFDET_README, "matlab"),),
    ),
    Entry(
        "LG-FAPF",
        "LG-FAPF",
        "Inf. Fusion 2022",
        pin(TFDET, TFDET_STATE + "LG-FAPF_result.txt", "256d8b22e668d088fb6556621e9d84f90f8f975a", 908572),
        TXT,
        "Apache-2.0",
        kit={"leaderboard": numbers(5.1188, 5.8389, 3.6928), "matlab": numbers(5.1188, 5.833, 3.6928)},
    ),
    Entry(
        "ProbEn",
        "ProbEn",
        "ECCV 2022",
        pin(TFDET, TFDET_STATE + "probEn_result.txt", "8f72348f7e2f15bdae5925aec6c1fb3d720d6563", 1110852),
        TXT,
        "Apache-2.0",
        quirks=("ProbEn3, the fusion of three detectors; numbers written as Python prints floats (up to 17 digits)",),
        kit={"leaderboard": numbers(5.1415, 6.0372, 3.5872), "matlab": numbers(5.1415, 6.0372, 3.5872)},
        quotes=(Quote(numbers(5.14, 6.04, 3.59), TFDET_README, "matlab"),),
    ),
    Entry(
        "TFDet",
        "TFDet",
        "2024",
        pin(TFDET, TFDET_RUN + "epoch_3-test-all.txt", "dca180accfa309cdc9b9321c1b6266e4a6b3092f", 996607),
        TXT,
        "Apache-2.0",
        quirks=(DEVKIT_TXT,),
        kit={"leaderboard": numbers(4.3692, 5.077, 3.358), "matlab": numbers(4.46, 5.22, 3.358)},
        quotes=(
            Quote(numbers(4.37, 5.08, 3.36), TFDET_README, "leaderboard"),
            Quote(numbers(4.47, 5.22, 3.36), TFDET_README, "matlab"),
        ),
        note="the README's devkit all is 4.47, the kit's devkit protocol gives 4.4600 on this file; its day and night "
        "match. The devkit in TFDet's repository differs from MBNet's only in comments; the 0.01 is unexplained",
    ),
    Entry(
        "TFDet-day",
        "TFDet (day file)",
        "2024",
        pin(TFDET, TFDET_RUN + "epoch_3-test-day.txt", "6f32cffd9aab1b65d807011dc2647b863caca423", 687157),
        DAY_TXT,
        "Apache-2.0",
        quirks=(DAY_FILE,),
        kit={"leaderboard": numbers(None, 5.077, None), "matlab": numbers(None, 5.22, None)},
    ),
    Entry(
        "TFDet-night",
        "TFDet (night file)",
        "2024",
        pin(TFDET, TFDET_RUN + "epoch_3-test-night.txt", "6ce53b9d352c0924344aed101edb4009ecb0c858", 305994),
        NIGHT_TXT,
        "Apache-2.0",
        quirks=(NIGHT_FILE,),
        kit={"leaderboard": numbers(None, None, 3.358), "matlab": numbers(None, None, 3.358)},
    ),
    Entry(
        "INSANet",
        "INSANet",
        "Sensors 2024",
        pin(INSANET, "evaluation/state_of_arts/INSANet_result.txt", "e7baf75a879918631b893c5a34ff8fbfc1fd20fb", 292655),
        TXT,
        "CC-BY-4.0",
        kit={"leaderboard": numbers(5.503, 6.2874, 4.2024), "matlab": numbers(5.7621, 6.6309, 4.2024)},
        quotes=(Quote(numbers(5.50, 6.29, 4.20), INSANET_README),),
        note="the README quotes the leaderboard script's numbers; the devkit, which most other rows of such tables "
        "quote, gives 5.76 / 6.63 / 4.20 on the same file",
    ),
    Entry(
        "MS-DETR",
        "MS-DETR",
        "T-ITS 2024",
        pin(MS_DETR, MS_DETR_STATE + "MS-DETR_result.txt", "f76048a66d82e38f3da3b5984d1ea414f454c22a"),
        TXT,
        "Apache-2.0",
        quirks=(NOT_AT_HAND, "the same blob is committed as result/MS_DETR_exp45.txt"),
    ),
    Entry(
        "UMPDP",
        "UMPDP",
        "2025",
        pin(
            UMPDP,
            "evaluation_script/state_of_arts/UMPDP_rethinking.txt",
            "4a7fd5321c48618a08a6243ec4f0472b0f0b2ebf",
            853261,
        ),
        TXT,
        "AGPL-3.0 (UMPDP/LICENSE, YOLOv5's)",
        quirks=("lines not ordered by image (the leaderboard reads them right; the unsorted finding says so)",),
        kit={"leaderboard": numbers(7.1986, 7.9378, 5.8088), "matlab": numbers(7.1986, 7.9378, 5.8088)},
    ),
    *(
        Entry(
            name,
            method,
            "ECCV 2020",
            pin(TASK_CONDITIONED, f"results/ours/{stem}.json", object_id, size),
            FRAME_NAMED_JSON,
            "MIT",
            quirks=(
                "thermal only",
                "COCO-style JSON whose image_id is the frame's name ('set06/V000/I00019'), not the ground truth's id",
                *extra,
            ),
            kit=kit,
            quotes=quotes,
            note=note,
            drawn=name == "TC-Det",
        )
        for name, method, stem, object_id, size, extra, kit, quotes, note in (
            (
                "TC-Det",
                "TC-Det (thermal)",
                "tc_det",
                "1a5aad6fd7307d8c8e596c88aaa309f7b9583f6f",
                1747914,
                (),
                {"leaderboard": numbers(21.3706, 27.5618, 9.344), "matlab": numbers(21.4978, 27.6478, 9.344)},
                (Quote(numbers(27.11, 34.81, 10.31), f"README of {TASK_CONDITIONED[0]}@{TASK_CONDITIONED[1][:7]}"),),
                "the README's numbers come from the repository's own evaluation (brambox, every box reshaped to the "
                "aspect ratio 0.41, heights from 50 px), another protocol than either of the kit's",
            ),
            (
                "TC-Det-no-conditioning",
                "TC-Det without conditioning (thermal)",
                "no_condition",
                "0b9b542702aa34a0f35742d282568af2a78319bc",
                1889841,
                ("an ablation of the paper",),
                {"leaderboard": numbers(26.7664, 31.7446, 16.5838), "matlab": numbers(26.7664, 31.6982, 16.5838)},
                (),
                "",
            ),
            (
                "TC-Det-visible",
                "TC-Det (visible)",
                "ours_visible",
                "dbe65f8247e55b6cef05457d6969610b6f455ef1",
                1892529,
                ("run on the visible images",),
                {"leaderboard": numbers(26.7881, 20.171, 40.7509), "matlab": numbers(27.4629, 20.328, 42.1285)},
                (),
                "",
            ),
            (
                "TC-Res-All",
                "TC Res All (thermal)",
                "tc_res_all",
                "16ab5f27737711c88bdec6ccf59833d192bda7df",
                3182304,
                ("an ablation of the paper",),
                {"leaderboard": numbers(26.7281, 33.6925, 12.048), "matlab": numbers(26.7281, 33.6925, 12.048)},
                (),
                "",
            ),
            (
                "TC-Res-Group",
                "TC Res Group (thermal)",
                "tc_res_group",
                "59fe28a1dfcfa7aaa9b6362e2cf9f19337d0b306",
                2993891,
                ("an ablation of the paper",),
                {"leaderboard": numbers(24.722, 29.4478, 14.5174), "matlab": numbers(24.722, 29.4409, 14.5174)},
                (),
                "",
            ),
            (
                "TC-Res-Group+Det",
                "TC Res Group + Det (thermal)",
                "tc_res_group_det",
                "42a047a2ea178afee386c606ff48378c50ff8bfe",
                2915966,
                ("an ablation of the paper",),
                {"leaderboard": numbers(27.0841, 32.5731, 15.7953), "matlab": numbers(27.0841, 32.5348, 15.7953)},
                (),
                "",
            ),
            (
                "TC-Det-mix",
                "TC-Det, mixed training (thermal)",
                "ours_newest_mix_80_20",
                "c55c63067133cbac57b408417d7b685baadee325",
                2045953,
                ("a later run, trained on an 80/20 mix (its file name)",),
                {"leaderboard": numbers(21.8638, 27.2052, 11.4725), "matlab": numbers(21.9279, 27.2462, 11.4725)},
                (),
                "",
            ),
        )
    ),
)

"""[workarounds] options: switches for known trade-offs, with Nova's names and defaults."""

from oslo_config import cfg

workarounds_group = cfg.OptGroup("workarounds", title="Workarounds")

workarounds_opts = [
    cfg.BoolOpt(
        "disable_group_policy_check_upcall",
        default=False,
        help="Skip the compute's late check of a hard server group policy (affinity, "
        "anti-affinity) before it builds; the check catches two schedulers placing "
        "members at once, at the cost of a conductor call per grouped build.",
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(workarounds_group)
    conf.register_opts(workarounds_opts, group=workarounds_group)


def list_opts() -> dict:
    return {workarounds_group: workarounds_opts}

"""[quota] options, with Nova's names and defaults (the server group limits so far)."""

from oslo_config import cfg

quota_group = cfg.OptGroup("quota", title="Quota options")

quota_opts = [
    cfg.IntOpt("server_groups", default=10, min=-1,
               help="Server groups a project may have; -1: unlimited."),
    cfg.IntOpt("server_group_members", default=10, min=-1,
               help="Servers a server group may hold; -1: unlimited."),
    cfg.BoolOpt("recheck_quota", default=True,
                help="Count again after creating, and undo what a concurrent request "
                "pushed over the limit (one more query per create)."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(quota_group)
    conf.register_opts(quota_opts, group=quota_group)


def list_opts() -> dict:
    return {quota_group: quota_opts}

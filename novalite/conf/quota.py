"""[quota] options, with Nova's names and defaults (-1: unlimited)."""

from oslo_config import cfg

quota_group = cfg.OptGroup("quota", title="Quota options")


def _limit(name: str, default: int, what: str) -> cfg.IntOpt:
    return cfg.IntOpt(name, default=default, min=-1, help=f"{what}; -1: unlimited.")


quota_opts = [
    _limit("instances", 10, "Servers a project may have"),
    _limit("cores", 20, "Instance cores (VCPUs) a project may use"),
    _limit("ram", 50 * 1024, "Megabytes of instance RAM a project may use"),
    _limit("metadata_items", 128, "Metadata items a server may carry"),
    _limit("injected_files", 5, "Files a server create may inject (personality)"),
    _limit("injected_file_content_bytes", 10 * 1024, "Bytes of an injected file"),
    _limit("injected_file_path_length", 255, "Characters of an injected file's path"),
    _limit("key_pairs", 100, "Key pairs a user may have"),
    _limit("server_groups", 10, "Server groups a project may have"),
    _limit("server_group_members", 10, "Servers a server group may hold"),
    cfg.BoolOpt("recheck_quota", default=True,
                help="Count again after creating, and undo what a concurrent request "
                "pushed over the limit (one more query per create)."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(quota_group)
    conf.register_opts(quota_opts, group=quota_group)


def list_opts() -> dict:
    return {quota_group: quota_opts}

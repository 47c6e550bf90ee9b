"""Resize and cold migration options ([DEFAULT]), with Nova's names and defaults."""

from oslo_config import cfg

opts = [
    cfg.BoolOpt(
        "allow_resize_to_same_host",
        default=False,
        help="Let the scheduler choose the server's own host for a resize (a cold "
        "migration always leaves it).",
    ),
    cfg.IntOpt(
        "resize_confirm_window",
        default=0,
        min=0,
        help="Seconds after which a resize or cold migration waiting in VERIFY_RESIZE is "
        "confirmed by its destination compute; 0: never.",
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts)


def list_opts() -> dict:
    return {"DEFAULT": opts}

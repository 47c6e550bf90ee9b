"""Messaging options ([DEFAULT]), named as oslo.messaging names them."""

from oslo_config import cfg

opts = [
    cfg.StrOpt(
        "transport_url",
        default="inprocess://",
        secret=True,
        help="Messaging transport. 'inprocess://' dispatches directly between services in "
        "one process (the all-in-one); 'rabbit://user:pass@host:5672/vhost' uses RabbitMQ.",
    ),
    cfg.IntOpt(
        "rpc_response_timeout",
        default=60,
        min=1,
        help="Seconds to wait for a response to an RPC call before MessagingTimeout.",
    ),
    cfg.IntOpt(
        "long_rpc_timeout",
        default=1800,
        min=1,
        help="Seconds to wait for the response to a call known to run long (a host "
             "downloading images into its cache), as Nova's.",
    ),
    cfg.IntOpt(
        "executor_thread_pool_size",
        default=64,
        min=1,
        help="Threads each RPC server uses to run incoming calls and casts. On the "
             "in-process transport (the all-in-one) a cast from an API request waits "
             "while all of its server's threads are busy, so this also bounds how many "
             "builds queue behind each other in a storm.",
    ),
    cfg.StrOpt(
        "control_exchange",
        default="novalite",
        help="AMQP exchange that RPC topics are bound to.",
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(opts)


def list_opts() -> dict:
    return {"DEFAULT": opts}

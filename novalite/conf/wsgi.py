"""How the HTTP servers treat client connections ([wsgi], Nova's names)."""

from oslo_config import cfg

wsgi_group = cfg.OptGroup("wsgi", title="HTTP server options")

wsgi_opts = [
    cfg.IntOpt(
        "client_socket_timeout", default=900, min=0,
        help="Seconds a client's idle connection is kept open between requests; 0 keeps it "
             "open until the client closes it. Clients such as `openstack ... --wait` "
             "poll every few seconds on one connection: a timeout near their interval "
             "closes it just as they send, and they fail with 'Remote end closed "
             "connection without response'.",
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(wsgi_group)
    conf.register_opts(wsgi_opts, group=wsgi_group)


def list_opts() -> dict:
    return {wsgi_group: wsgi_opts}

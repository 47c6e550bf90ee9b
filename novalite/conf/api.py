"""Compute API options: where it listens ([DEFAULT], Nova's names) and how it authenticates;
where novalite-placement listens when placement runs as a process of its own."""

from oslo_config import cfg

api_group = cfg.OptGroup("api", title="API options")

default_opts = [
    cfg.HostAddressOpt(
        "osapi_compute_listen", default="0.0.0.0", help="Address the API listens on."
    ),
    cfg.PortOpt("osapi_compute_listen_port", default=8774, help="Port the API listens on."),
    # Upstream serves placement-api from a web server of the deployer's choosing; these
    # are novalite-placement's, with devstack's port.
    cfg.HostAddressOpt("placement_listen", default="0.0.0.0",
                       help="Address novalite-placement listens on."),
    cfg.PortOpt("placement_listen_port", default=8778,
                help="Port novalite-placement listens on."),
]

api_opts = [
    cfg.StrOpt(
        "auth_strategy",
        default="keystone",
        choices=[("keystone", "Validate the X-Auth-Token header against novalite's identity "
                  "service (same database and Fernet key repository)."),
                 ("noauth2", "No authentication: a token 'user:project' names the caller; "
                  "no token means the admin user in the admin project. For development.")],
        help="How the API authenticates requests.",
    ),
    cfg.IntOpt("max_limit", default=1000, min=0, help="Largest page a list request returns."),
    cfg.StrOpt(
        "public_endpoint",
        help="Base URL clients should use (e.g. behind a proxy). Default: the request's host.",
    ),
]


# oslo.middleware's sizelimit option, which Nova and Keystone read from this group.
middleware_group = cfg.OptGroup("oslo_middleware")
middleware_opts = [
    cfg.IntOpt("max_request_body_size", default=114688, min=0,
               help="The largest request body, in bytes, an API reads (larger ones are "
                    "refused with 413). Image uploads are streamed and not limited here."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(default_opts)
    conf.register_group(api_group)
    conf.register_opts(api_opts, group=api_group)
    conf.register_group(middleware_group)
    conf.register_opts(middleware_opts, group=middleware_group)


def list_opts() -> dict:
    return {"DEFAULT": default_opts, api_group: api_opts, middleware_group: middleware_opts}

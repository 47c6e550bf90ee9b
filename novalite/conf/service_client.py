"""keystoneauth's session, auth and adapter options for a client of another service,
under the group name Nova uses for it ([placement], [glance]), so a nova.conf section
(auth_type, auth_url, username, ..., region_name, valid_interfaces, endpoint_override)
means the same here."""

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg


def adapter_opts(service_type: str, retries: int | None = None) -> list[cfg.Opt]:
    """keystoneauth's adapter options with Nova's defaults for the service (as opt
    defaults, which survive CONF.reset(), unlike set_default); `retries` is the default
    of connect_retries and status_code_retries (keystoneauth backs off exponentially from
    0.5 s, and retries 503 by default)."""
    opts = ks_loading.get_adapter_conf_options(include_deprecated=False)
    for opt in opts:
        if opt.dest == "service_type":
            opt.default = service_type
        elif opt.dest == "valid_interfaces":
            opt.default = ["internal", "public"]
        elif opt.dest in ("connect_retries", "status_code_retries") and retries is not None:
            opt.default = retries
    return opts


def register(conf: cfg.ConfigOpts, group: cfg.OptGroup, adapter: list[cfg.Opt]) -> None:
    conf.register_group(group)
    ks_loading.register_session_conf_options(conf, group.name)
    ks_loading.register_auth_conf_options(conf, group.name)
    conf.register_opts(adapter, group=group)


def listed(adapter: list[cfg.Opt]) -> list[cfg.Opt]:
    return (ks_loading.get_session_conf_options()
            + ks_loading.get_auth_common_conf_options()
            + ks_loading.get_auth_plugin_conf_options("password")
            + adapter)

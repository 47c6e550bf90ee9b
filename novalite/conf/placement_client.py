"""[placement] options of the placement client (computes, scheduler, conductor, API):
keystoneauth's session, auth and adapter options under Nova's group name, so a nova.conf
`[placement]` section (auth_type, auth_url, username, ..., region_name, valid_interfaces,
endpoint_override) means the same here.

Without an auth_type the client sends no token, which the APIs' `noauth2` strategy treats
as the admin; `endpoint_override` must then say where placement is (the all-in-one sets
it to its own HTTP server).
"""

from keystoneauth1 import loading as ks_loading
from oslo_config import cfg

GROUP = "placement"
placement_group = cfg.OptGroup(GROUP, title="Placement client options")


def _adapter_opts() -> list[cfg.Opt]:
    """keystoneauth's adapter options with Nova's defaults for placement (as opt
    defaults, which survive CONF.reset(), unlike set_default)."""
    opts = ks_loading.get_adapter_conf_options(include_deprecated=False)
    for opt in opts:
        if opt.dest == "service_type":
            opt.default = "placement"
        elif opt.dest == "valid_interfaces":
            opt.default = ["internal", "public"]
    return opts


ADAPTER_OPTS = _adapter_opts()


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(placement_group)
    ks_loading.register_session_conf_options(conf, GROUP)
    ks_loading.register_auth_conf_options(conf, GROUP)
    conf.register_opts(ADAPTER_OPTS, group=GROUP)


def list_opts() -> dict:
    return {placement_group: (
        ks_loading.get_session_conf_options()
        + ks_loading.get_auth_common_conf_options()
        + ks_loading.get_auth_plugin_conf_options("password")
        + ADAPTER_OPTS)}

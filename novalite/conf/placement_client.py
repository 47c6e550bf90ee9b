"""[placement] options of the placement client (computes, scheduler, conductor, API),
keystoneauth's, under Nova's group name.

Without an auth_type the client sends no token, which the APIs' `noauth2` strategy treats
as the admin; `endpoint_override` must then say where placement is (the all-in-one sets
it to its own HTTP server).

connect_retries and status_code_retries default to 6 here (keystoneauth's own default is
none), so placement calls survive a restart of the placement API.
"""

from oslo_config import cfg

from novalite.conf import service_client

GROUP = "placement"
placement_group = cfg.OptGroup(GROUP, title="Placement client options")
# Six retries back off 0.5 + 1 + ... + 16 s: a restart of the placement API (it lives in
# novalite-api) of up to ~30 s delays a claim or a report instead of failing the build.
ADAPTER_OPTS = service_client.adapter_opts("placement", retries=6)


def register_opts(conf: cfg.ConfigOpts) -> None:
    service_client.register(conf, placement_group, ADAPTER_OPTS)


def list_opts() -> dict:
    return {placement_group: service_client.listed(ADAPTER_OPTS)}

"""[cinder] options of the volume client computes and the compute API use, under Nova's
group name: keystoneauth's session/auth/adapter options (service type `block-storage`,
which the catalog also lists as `volumev3`) and Nova's `http_retries`. As with
[placement], the all-in-one points the client at its own HTTP server when neither auth
nor endpoint_override is set."""

from oslo_config import cfg

from novalite.conf import service_client

GROUP = "cinder"
cinder_group = cfg.OptGroup(GROUP, title="Block storage service client options")
ADAPTER_OPTS = service_client.adapter_opts("block-storage")
cinder_opts: list[cfg.Opt] = [
    cfg.IntOpt("http_retries", default=3, min=0,
               help="Times an idempotent request to the volume service is retried after "
               "a connection error."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    service_client.register(conf, cinder_group, ADAPTER_OPTS + cinder_opts)


def list_opts() -> dict:
    return {cinder_group: service_client.listed(ADAPTER_OPTS) + cinder_opts}

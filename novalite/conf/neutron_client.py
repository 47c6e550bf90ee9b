"""[neutron] options of the network client computes and the compute API use, by Nova's
names: keystoneauth's session/auth/adapter options (service type `network`), the
floating IP pool, and [DEFAULT]'s vif plugging wait. As with [placement], the
all-in-one points the client at its own HTTP server when neither auth nor
endpoint_override is set."""

from oslo_config import cfg

from novalite.conf import service_client

GROUP = "neutron"
neutron_group = cfg.OptGroup(GROUP, title="Network service client options")
ADAPTER_OPTS = service_client.adapter_opts("network")
neutron_opts = [
    cfg.StrOpt("default_floating_pool", default="public",
               help="The external network floating IPs come from when a request names "
               "none (Nova's default is 'nova'; devstack sets 'public')."),
    cfg.StrOpt("metadata_proxy_shared_secret", default="", secret=True,
               help="Secret the network node's metadata proxy signs the instance id it "
               "names with (X-Instance-ID-Signature); the metadata API refuses a request "
               "whose signature does not match."),
    cfg.IntOpt("http_retries", default=3, min=0,
               help="Times an idempotent request to the network service is retried "
               "after a connection error."),
]
default_opts = [
    cfg.IntOpt("vif_plugging_timeout", default=300, min=0,
               help="Seconds a real guest's start waits for the network service to "
               "confirm its ports up once the driver plugged them (Nova waits as long "
               "for network-vif-plugged events), retrying; 0: one try, no wait. A "
               "simulated (fake) guest's ports are up once bound."),
    cfg.BoolOpt("vif_plugging_is_fatal", default=True,
                help="Whether a guest whose ports were not confirmed in time fails to "
                "start (a build: ERROR, 'Failed to allocate the network(s), not "
                "rescheduling.'), or starts anyway. Ignored when vif_plugging_timeout "
                "is 0."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    service_client.register(conf, neutron_group, ADAPTER_OPTS + neutron_opts)
    conf.register_opts(default_opts)


def list_opts() -> dict:
    return {neutron_group: service_client.listed(ADAPTER_OPTS) + neutron_opts,
            "DEFAULT": default_opts}

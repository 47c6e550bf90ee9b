"""[pci]: PCI passthrough aliases, with Nova's name and format."""

from oslo_config import cfg

group = cfg.OptGroup("pci", title="PCI passthrough options")

opts = [
    cfg.MultiStrOpt(
        "alias",
        default=[],
        deprecated_name="pci_alias",
        deprecated_group="DEFAULT",
        help="A PCI device a flavor may ask for by name (extra spec "
        "'pci_passthrough:alias' = '<name>:<count>[,...]'), as JSON: {\"name\": ..., "
        "\"vendor_id\": \"8086\", \"product_id\": \"1520\", \"device_type\": "
        "\"type-PCI|type-PF|type-VF\", \"numa_policy\": "
        "\"legacy|preferred|required|socket\"}. Repeat the option for more aliases; "
        "several entries with one name are alternatives.",
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(group)
    conf.register_opts(opts, group=group)


def list_opts() -> dict:
    return {group: opts}

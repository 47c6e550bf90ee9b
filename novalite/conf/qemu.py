"""Options of the qemu virt driver: Nova's names where Nova has the option ([DEFAULT]
instances_path, [libvirt] virt_type, [image_cache] subdirectory_name),
[qemu] for what only a QMP-driven driver needs."""

from oslo_config import cfg

default_opts = [
    cfg.StrOpt(
        "instances_path",
        default="",
        help="Where instance directories (disk overlay, console log, QMP socket, pidfile) "
        "and the base image cache live; empty: $state_path/instances.",
    ),
]

libvirt_group = cfg.OptGroup("libvirt", title="Hypervisor options (Nova's libvirt group)")
libvirt_opts = [
    cfg.StrOpt(
        "virt_type",
        default="auto",
        choices=["auto", "kvm", "qemu"],
        help="Acceleration: kvm, qemu (TCG software emulation), or auto: kvm only when a "
        "probe guest really boots under it, else qemu.",
    ),
    cfg.IntOpt(
        "num_pcie_ports",
        default=8,
        min=1,
        max=15,
        help="PCIe root ports a guest gets when it is made, one per volume it can have "
        "attached at once (a q35 guest hot-plugs devices only into such ports). Nova's "
        "option; libvirt's default of 0 has no meaning here. A guest keeps the number "
        "it was made with.",
    ),
    cfg.IntOpt(
        "live_migration_bandwidth",
        default=0,
        min=0,
        help="Most MiB/s a live migration's memory copy may take. Nova's option; 0, as "
        "with libvirt, leaves it unbounded (QEMU alone would cap it at 128 MiB/s, and a "
        "TCG guest is paused while its memory is copied).",
    ),
    cfg.IntOpt(
        "device_detach_timeout",
        default=20,
        min=1,
        help="Seconds a volume's detach waits for the guest to release the device "
        "(QEMU's DEVICE_DELETED event); past it the detach fails and the volume stays "
        "attached.",
    ),
]

qemu_group = cfg.OptGroup("qemu", title="qemu virt driver options")
qemu_opts = [
    cfg.StrOpt("emulator", default="qemu-system-x86_64",
               help="The QEMU binary (a name on PATH or a path)."),
    cfg.StrOpt("qemu_img", default="qemu-img", help="The qemu-img binary."),
    cfg.StrOpt("qemu_nbd", default="qemu-nbd",
               help="The qemu-nbd binary, which serves a disk to the destination of a "
               "resize or cold migration."),
    cfg.IntOpt("hosts", default=1, min=1,
               help="How many QEMU computes the all-in-one runs on this machine (its "
               "--hosts with --driver qemu); with more than one, each keeps its guests "
               "in its own directory under instances_path, as separate machines would."),
    cfg.FloatOpt("live_migration_timeout", default=300.0, min=1.0,
                 help="Seconds a live migration's disk mirror and memory copy may take "
                 "before it is cancelled (the guest stays on its source)."),
    cfg.StrOpt("machine_type", default="q35", help="QEMU machine type of guests."),
    cfg.StrOpt("cpu_model", default="qemu64",
               help="Guest CPU model under TCG (under KVM guests get 'host')."),
    cfg.FloatOpt("probe_timeout", default=15.0, min=1.0,
                 help="Seconds the KVM probe guest has to reach its marker."),
    cfg.StrOpt(
        "guest_image_dir",
        default="",
        help="Where the built default guest (kernel, busybox initramfs, qcow2 disk) is "
        "cached; empty: ~/.cache/novalite/guest-image.",
    ),
]

image_cache_group = cfg.OptGroup("image_cache", title="Base image cache")
image_cache_opts = [
    cfg.StrOpt("subdirectory_name", default="_base",
               help="Directory under instances_path holding downloaded base images."),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_opts(default_opts)
    conf.register_group(libvirt_group)
    conf.register_opts(libvirt_opts, group=libvirt_group)
    conf.register_group(qemu_group)
    conf.register_opts(qemu_opts, group=qemu_group)
    conf.register_group(image_cache_group)
    conf.register_opts(image_cache_opts, group=image_cache_group)


def list_opts() -> dict:
    return {
        "DEFAULT": default_opts,
        libvirt_group: libvirt_opts,
        qemu_group: qemu_opts,
        image_cache_group: image_cache_opts,
    }

"""[placement] options that shape GET /allocation_candidates, with upstream Placement's
names and defaults (the rest of [placement] belongs to the placement API's own module)."""

from oslo_config import cfg

placement_group = cfg.OptGroup("placement", title="Placement service options")

allocation_candidates_opts = [
    cfg.BoolOpt(
        "randomize_allocation_candidates",
        default=False,
        help="Return allocation candidates in random order instead of provider order, and "
        "sample `limit` of them at random; spreads concurrent schedulers over hosts.",
    ),
    cfg.IntOpt(
        "max_allocation_candidates",
        default=-1,
        min=-1,
        help="Stop generating candidates after this many (-1: no limit). Bounds the work "
        "on wide provider trees, where the combinations explode.",
    ),
    cfg.StrOpt(
        "allocation_candidates_generation_strategy",
        default="depth-first",
        choices=[
            ("depth-first", "Exhaust the combinations of one root provider before the "
             "next."),
            ("breadth-first", "Take one combination from each root provider in turn, so "
             "a max_allocation_candidates cut spreads over many hosts."),
        ],
        help="Order in which candidates are generated across root providers; matters "
        "when max_allocation_candidates cuts the generation short.",
    ),
]


def register_opts(conf: cfg.ConfigOpts) -> None:
    conf.register_group(placement_group)
    conf.register_opts(allocation_candidates_opts, group=placement_group)


def list_opts() -> dict:
    return {placement_group: allocation_candidates_opts}

from novalite.db import session
from novalite.volume import capacity, snapshots, states
from tests.unit.volume.builders import make_volume


def test_free_is_total_less_reserved_and_allocated(conf):
    conf.set_override("volume_backend_capacity_gb", 100)
    assert capacity.of_backend(30).free_gb == 70
    conf.set_override("reserved_percentage", 10)
    assert capacity.of_backend(30).free_gb == 60
    assert capacity.of_backend(30).fits(60) and not capacity.of_backend(30).fits(61)
    assert capacity.of_backend(200).free_gb == 0


def _allocated(pool: str) -> int:
    with session.reader() as s:
        return capacity.of_pool(s, pool).allocated_gb


def test_a_pool_counts_its_volumes_and_their_snapshots_on_each_backend(backend_db):
    """In one read: every volume placed on the pool, and a full copy per snapshot;
    another pool's count nothing."""
    pool = capacity.pool_name("host1")
    assert _allocated(pool) == 0
    sized = make_volume(states.AVAILABLE, size=3, host=pool)
    make_volume(states.CREATING, size=2, host=pool)
    make_volume(states.AVAILABLE, size=7, host=capacity.pool_name("host2"))
    with session.writer() as s:
        snapshots.create(s, {"id": "s1", "project_id": "p1", "volume_id": sized,
                             "volume_size": 3, "status": snapshots.AVAILABLE,
                             "snapshot_metadata": {}})
    assert _allocated(pool) == 8

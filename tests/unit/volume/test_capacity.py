from novalite.volume import capacity


def test_free_is_total_less_reserved_and_allocated(conf):
    conf.set_override("volume_backend_capacity_gb", 100)
    assert capacity.of_backend(30).free_gb == 70
    conf.set_override("reserved_percentage", 10)
    assert capacity.of_backend(30).free_gb == 60
    assert capacity.of_backend(30).fits(60) and not capacity.of_backend(30).fits(61)
    assert capacity.of_backend(200).free_gb == 0

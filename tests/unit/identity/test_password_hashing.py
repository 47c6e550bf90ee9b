from novalite.identity import password_hashing


def test_hash_verifies_and_is_salted():
    first = password_hashing.hash_password("secret")
    second = password_hashing.hash_password("secret")
    assert first != second and first.startswith("scrypt$16384$8$1$")
    assert password_hashing.check_password("secret", first)
    assert password_hashing.check_password("secret", second)
    assert not password_hashing.check_password("Secret", first)


def test_missing_or_malformed_hashes_never_match():
    for hashed in (None, "", "plain", "md5$1$2$3$00$00", "scrypt$x$8$1$00$00"):
        assert not password_hashing.check_password("secret", hashed)


def test_new_hashes_take_the_configured_cost_and_old_ones_still_verify(conf):
    conf.set_override("password_hash_rounds", 14, group="identity")
    old = password_hashing.hash_password("secret")
    conf.set_override("password_hash_rounds", 10, group="identity")
    new = password_hashing.hash_password("secret")
    assert new.startswith("scrypt$1024$8$1$")
    assert password_hashing.dummy_hash().startswith("scrypt$1024$")
    assert password_hashing.check_password("secret", old)
    assert password_hashing.check_password("secret", new)

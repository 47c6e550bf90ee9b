"""Identity: a Keystone v3 subset (domains, projects, users, roles, the catalog, tokens).

The API in novalite.api.identity renders what these modules return; every other API
validates tokens through `tokens.validate`, reading the same database and key repository.
"""

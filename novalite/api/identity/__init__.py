"""The identity API (Keystone v3 subset), mounted at /identity."""

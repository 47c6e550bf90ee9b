"""The network service (a Neutron v2 subset): its data and operations, with SQL behind
functions that take a session, as placement's are. HTTP lives in novalite.api.network;
computes reach this only through that API (novalite.clients.neutron)."""

"""HTTP clients of the services novalite's services call, each configured by the option
group Nova uses for it ([placement], [glance], [neutron], ...), so a novalite service
could talk to the real OpenStack service and the other way round.
"""

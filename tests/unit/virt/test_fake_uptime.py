import re

from novalite.virt.fake import FakeDriver


def test_the_host_uptime_reads_as_the_uptime_command_prints_it():
    line = FakeDriver().get_host_uptime()
    assert re.fullmatch(r" \d\d:\d\d:\d\d up 0:00,  0 users,  load average: "
                        r"0\.00, 0\.00, 0\.00", line)

from novalite.compute.manager import ComputeManager


def test_the_build_message_is_acked_once_handled_the_moves_when_taken():
    late = {name for name in dir(ComputeManager)
            if getattr(getattr(ComputeManager, name), "ack_when_done", False)}
    assert late == {"build_and_run_instance"}

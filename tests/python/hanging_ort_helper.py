"""The ONNX Runtime helper (saturate.ort_helper --serve), except that requests carrying the key
named by SATURATE_TEST_HANG_ON ("check": the whole-model checks; "models": operator timing) are
never answered, as a helper stuck in a long run would be. test_time_limit.py starts it through a
stand-in Python (SATURATE_PYTHON) to show that the command's deadline still ends the run."""
import os
import sys
import time

from saturate import ort_helper

HANG_ON = os.environ["SATURATE_TEST_HANG_ON"]
answer_for_real = ort_helper.answer


def answer(request: dict) -> dict:
    if HANG_ON in request:
        time.sleep(3600)
    return answer_for_real(request)


ort_helper.answer = answer
sys.exit(ort_helper.main(sys.argv[1:]))

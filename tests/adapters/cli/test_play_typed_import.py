"""A teacher imports a Moodle GIFT export with typed-number questions and plays it in the
terminal: a number typed within the GIFT tolerance is right, one outside it is wrong, and
the explanation (the GIFT feedback) shows either way."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest

from adapters.cli.main import main

FIXTURES = Path(__file__).parents[2] / "fixtures" / "import"


def test_a_gift_export_with_typed_numbers_imports_and_plays(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    content = tmp_path / "content"
    content.mkdir()
    assert main(["import", str(FIXTURES / "photosynthesis.gift"), "--output",
                 str(content / "photosynthesis.yaml")]) == 0
    err = capsys.readouterr().err
    assert "10 questions" in err and "skipped" not in err
    assert "photosynthesis.gift:69: partial credit (50%) is not kept" in err
    config = tmp_path / "config.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{tmp_path / 'q.db'}\n"
                      f"content:\n  dir: {content}\n")
    # six taps, then 6 CO2 (exactly 6) and 700 (680 +- 10: outside; GIFT has no units), two taps
    monkeypatch.setattr(sys, "stdin", io.StringIO("a\n" * 6 + "6\n700\n" + "a\n" * 2
                                                  + "n\n"))
    assert main(["play", "--quiz", "photosynthesis", "--user", "ana", "--lang", "en",
                 "--config", str(config)]) == 0
    out = capsys.readouterr().out
    co2 = out[out.index("Question 7/10 ·"):out.index("Question 8/10 ·")]
    assert "Or type the number" in co2 and "✅ Correct!\nYou typed: 6" in co2
    assert "6 CO2 + 6 H2O → C6H12O6 + 6 O2." in co2
    peak = out[out.index("Question 8/10 ·"):out.index("Question 9/10 ·")]
    assert "❌ Not quite." in peak and "You typed: 700" in peak
    assert "680" in peak.split("Right answer:")[1].splitlines()[0]
    assert "Chlorophyll a's red absorption peak is near 680 nm" in peak


@pytest.mark.parametrize("lang", ["en", "ur"])
def test_a_moodle_unit_may_be_typed_with_another_si_prefix(
        lang: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # '0.68 µm' for a Moodle question whose options read '680 nm' (680 +- 10) was 'I can't
    # read that as a number'; '680 ms' (a time, not a length) was refused without saying
    # which unit the answer is in.
    content = tmp_path / "content"
    content.mkdir()
    assert main(["import", str(FIXTURES / "photosynthesis.xml"), "--output",
                 str(content / "photosynthesis.yaml")]) == 0
    capsys.readouterr()
    config = tmp_path / "config.yaml"
    config.write_text(f"storage:\n  url: sqlite:///{tmp_path / 'q.db'}\n"
                      f"content:\n  dir: {content}\n")
    typed = "0.68 µm" if lang == "en" else "۰٫۶۸ um"
    monkeypatch.setattr(sys, "stdin", io.StringIO(
        "a\n" * 6 + f"6\n680 ms\n{typed}\n" + "a\n" * 2 + "n\n"))
    assert main(["play", "--quiz", "photosynthesis", "--user", "ana", "--lang", lang,
                 "--config", str(config)]) == 0
    out = capsys.readouterr().out.replace("\u2066", "").replace("\u2069", "")
    peak = out[out.index("8/10"):out.index("9/10")]
    refusal = {"en": "ms is the wrong kind of unit here: the answer is in nm. Type it like",
               "ur": "اس جواب کے لیے ms غلط قسم کی اکائی ہے: جواب nm میں ہے۔"}[lang]
    assert refusal in peak
    assert {"en": "✅ Correct!", "ur": "✅ درست!"}[lang] in peak
    assert "680 nm" in peak.split("✅", 2)[2]  # 'You typed: 680 nm', as the options write it

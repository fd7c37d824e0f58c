"""Typed numbers: a table of what learners type and what it reads as."""

from __future__ import annotations

import pytest

from bot.domain.numeric import (
    TypedError,
    close,
    match,
    parse,
    shown,
    thousands_dot,
    unit_of_option,
)

CASES = [
    # (typed, question's unit, first reading in the question's unit)
    ("1.2", "GB", 1.2),
    ("1.2 GB", "GB", 1.2),
    ("1200 MB", "GB", 1.2),
    ("1,200 MB", "GB", 1.2),
    ("1 200 MB", "GB", 1.2),
    ("1.2e9 B", "GB", 1.2),
    ("1.2×10^9 bytes", "GB", 1.2),
    ("1.2·10⁹ B", "GB", 1.2),
    ("1 GiB", "GB", 2**30 / 1e9),
    ("512 KiB", "MB", 512 * 1024 / 1e6),
    ("1,5", "GB", 1.5),
    ("1.234,5 MB", "GB", 1.2345),
    ("1,234.5 MB", "GB", 1.2345),
    ("۱٫۲", "GB", 1.2),
    ("١٬٢٠٠ MB", "GB", 1.2),
    ("12.5 ms", "ms", 12.5),
    ("12.5", "ms", 12.5),
    ("0.0125 s", "ms", 12.5),
    ("12500 us", "ms", 12.5),
    ("12500 µs", "ms", 12.5),
    ("1.25e7 ns", "ms", 12.5),
    ("2 s", "s", 2.0),
    # time converts across s, min and h: '120 s' for options in min was 'the wrong kind of unit'
    ("120 s", "min", 2.0),
    ("2 min", "s", 120.0),
    ("1.5 h", "min", 90.0),
    ("90 minutes", "h", 1.5),
    ("0.5 hours", "s", 1800.0),
    ("3000 ms", "min", 0.05),
    ("2 منٹ", "s", 120.0),
    ("1.5 گھنٹے", "min", 90.0),
    ("۱۲۰ سیکنڈ", "min", 2.0),
    ("24", "", 24.0),
    ("m = 24", "", 24.0),
    ("+24", "", 24.0),
    ("-3", "", -3.0),
    ("−3", "", -3.0),
    ("1.2K", "", 1200.0),
    ("3 bn", "", 3e9),
    ("2M", "", 2e6),
    ("1e9", "", 1e9),
    ("~24", "", 24.0),
    ("12%", "%", 0.12),
    ("12", "%", 0.12),
    ("12.5 %", "%", 0.125),
    ("۱۲٪", "%", 0.12),
    ("12%", "percent", 12.0),
    ("12", "percent", 12.0),
    ("0.12", "%", 0.0012),  # first reading: percentage points; the fraction is the second
    ("\u200f۱۲\u200f٪", "%", 0.12),  # right-to-left marks around Urdu digits
    ("\u20671.2 GB\u2069", "GB", 1.2),  # an isolate copied from an Urdu line
    ("  1.2GB  ", "GB", 1.2),
    ("1.2 gb", "GB", 1.2),
    ("１２", "", 12.0),  # full-width digits
    # a unit written in Urdu, as the Urdu texts write it ("20 فیصد" was "not a number")
    ("20 فیصد", "%", 0.2),
    ("۲۰ فیصد", "%", 0.2),
    ("12.5فی صد", "%", 0.125),
    ("20 فيصد", "%", 0.2),  # an Arabic keyboard's yeh
    ("12 فیصد۔", "%", 0.12),
    ("66 ملی سیکنڈ", "ms", 66.0),
    ("0.066 سیکنڈ", "ms", 66.0),
    ("3.5 جی بی", "GB", 3.5),
    ("3500 ایم بی", "GB", 3.5),
    ("2 گیگا بائٹس", "GB", 2.0),
    ("2 لاکھ", "", 2e5),
    ("3 کروڑ", "", 3e7),
    ("1.2 ارب", "", 1.2e9),
    ("۲ ہزار", "", 2000.0),
    # a four-digit number is shown ungrouped ("1822") and read grouped or not
    ("1822", "", 1822.0),
    ("1,822", "", 1822.0),
    ("۱۸۲۲", "", 1822.0),
    ("۱٬۸۲۲", "", 1822.0),
    ("65,536", "", 65536.0),
    ("65536", "", 65536.0),
    ("4096 MB", "MB", 4096.0),
    # powers, as sizes are written: '2^30' was 'not a number', '2³⁰' read as 230
    ("2^30 B", "GB", 2**30 / 1e9),
    ("2**30 bytes", "GB", 2**30 / 1e9),
    ("2³⁰ B", "GB", 2**30 / 1e9),
    ("2 ^ 10", "", 1024.0),
    ("10^9", "", 1e9),
    ("2^-10 s", "ms", 1000 / 1024),
    ("۲^۳۰ B", "GB", 2**30 / 1e9),
    # unit words: '0.4 seconds', '12 percent' were 'not a number'
    ("0.4 seconds", "s", 0.4),
    ("1 second", "ms", 1000.0),
    ("12 percent", "%", 0.12),
    ("12 pct", "%", 0.12),
]


@pytest.mark.parametrize(("typed", "unit", "value"), CASES)
def test_reads(typed: str, unit: str, value: float) -> None:
    assert parse(typed, unit).values[0] == pytest.approx(value)


def test_a_bare_decimal_for_a_percentage_is_also_read_as_the_fraction() -> None:
    assert parse("0.12", "%").values == pytest.approx((0.0012, 0.12))
    assert parse("12", "%").values == pytest.approx((0.12,))


BAD = [
    ("twelve", "GB", "typed.not_number"),
    ("", "GB", "typed.not_number"),
    ("1,2,3.4.5", "GB", "typed.not_number"),
    ("GB", "GB", "typed.not_number"),
    ("12 furlongs", "GB", "typed.not_number"),
    ("12 ms", "GB", "typed.wrong_unit"),
    ("1.2 GB", "ms", "typed.wrong_unit"),
    ("12%", "GB", "typed.wrong_unit"),
    ("12 GB", "%", "typed.wrong_unit_percent"),
    ("1" * 41, "", "typed.too_long"),
    ("1; DROP TABLE answers", "", "typed.not_number"),
    ("🔢", "", "typed.not_number"),
    ("1\x002", "", "typed.not_number"),
    ("<b>12</b>", "", "typed.not_number"),
    ("12 12", "", "typed.not_number"),
    ("1e999", "", "typed.not_number"),
    ("10^999", "", "typed.not_number"),
    ("999999^999", "", "typed.not_number"),
    ("0^-1", "", "typed.not_number"),
    ("٪", "%", "typed.not_number"),
    ("x" * 5000, "", "typed.too_long"),
]


@pytest.mark.parametrize(("typed", "unit", "key"), BAD)
def test_refuses(typed: str, unit: str, key: str) -> None:
    with pytest.raises(TypedError) as err:
        parse(typed, unit)
    assert err.value.key == key
    if key != "typed.too_long":
        assert err.value.fields["example"]


@pytest.mark.parametrize(("typed", "unit", "got", "echo"), [
    ("12 فیصد", "GB", "فیصد", None),
    ("12 جی بی", "ms", "جی بی", None),
    ("66  ملی   سیکنڈ", "ms", None, "66 ملی سیکنڈ"),
    ("۲۰ فیصد", "%", None, "20 فیصد"),
])
def test_an_urdu_unit_is_echoed_and_refused_in_the_learners_words(
        typed: str, unit: str, got: str | None, echo: str | None) -> None:
    if got is None:
        assert parse(typed, unit).shown == echo  # "You typed: 20 فیصد", not "20%"
        return
    with pytest.raises(TypedError) as err:
        parse(typed, unit)
    assert (err.value.key, err.value.fields["got"]) == ("typed.wrong_unit", got)


@pytest.mark.parametrize(("source", "unit"), [
    ("{value:.1%}", "%"), ("{value} GB", "GB"), ("{value:.1f} ms", "ms"), ("{value} s", "s"),
    ("{value} min", "min"), ("{value:.1f} h", "h"),
    ("m = {value:d}", ""), ("p = {value:d}", ""), ("{value} MB", "MB"), ("{value}", ""),
])
def test_unit_read_from_the_option_template(source: str, unit: str) -> None:
    assert unit_of_option(source) == unit


def test_tolerance_is_relative_and_the_answer_wins() -> None:
    assert close(1.02, 1.0, 0.02) and not close(1.021, 1.0, 0.02)
    assert close(0.0, 0.0, 0.02)
    values = [1.0, 1.5, 2.0]  # the answer, then the named mistakes
    assert match(parse("1.01", "GB"), values, 0.02) == 0
    assert match(parse("1490 MB", "GB"), values, 0.02) == 1
    assert match(parse("1.7", "GB"), values, 0.02) is None


@pytest.mark.parametrize("value, unit, echo", [
    (999_999, "GB", "999,999 GB"), (1e9, "GB", "1,000,000,000 GB"),
    (1.2e6, "MB", "1,200,000 MB"), (1_074.5, "MB", "1074.5 MB"), (1.5, "GB", "1.5 GB"),
    (0.224, "ms", "0.224 ms"), (42.0, "ms", "42 ms"), (24, "", "24"), (0.125, "%", "12.5%"),
    (1e7, "%", "1,000,000,000%"),
    (1822.0, "", "1822"), (4096.0, "MB", "4096 MB"), (65536.0, "", "65,536"),
    (1074.5, "", "1074.5"),
])
def test_a_typed_value_is_echoed_as_the_options_write_numbers(value, unit, echo):
    """'You typed: 1e+09 GB' for a learner who typed 1000000000, '999999 GB' beside options
    written '65,536 MB': the echo groups thousands from five digits, has no exponent, and
    reads back."""
    assert shown(value, unit) == echo
    if unit != "%":
        assert parse(echo, unit).values[0] == pytest.approx(value)


@pytest.mark.parametrize(("typed", "value"), [
    ("0.68 µm", 680.0), ("0.68 um", 680.0), ("0.68µm", 680.0), ("0.68 μm", 680.0),
    ("0.68 UM", 680.0), ("680000 pm", 680.0), ("6.8e-7 m", 680.0), ("689 nm", 689.0),
    ("689 NM", 689.0), ("689", 689.0), ("۶۸۹ nm", 689.0),
])
def test_another_si_prefix_of_the_options_own_unit_is_converted(typed: str, value: float) -> None:
    """'0.68 µm' for options written '680 nm' was 'I can't read that as a number'."""
    assert parse(typed, "", word="nm").values == pytest.approx((value,))


@pytest.mark.parametrize(("word", "typed", "value"), [
    ("kHz", "2 MHz", 2000.0), ("kHz", "2000 Hz", 2.0), ("TFLOPS", "1 PFLOPS", 1000.0),
    ("TFLOPS", "500 tflops", 500.0), ("mm", "2 cm", 20.0), ("GPUs", "1.2k", 1200.0),
])
def test_si_prefixes_of_other_units(word: str, typed: str, value: float) -> None:
    assert parse(typed, "", word=word).values == pytest.approx((value,))


@pytest.mark.parametrize(("typed", "unit", "word", "got", "expected"), [
    ("680 ms", "", "nm", "ms", "nm"),  # a time for a length
    ("680 kg", "", "nm", "kg", "nm"),
    ("12 ms", "GB", "", "ms", "GB"),
])
def test_a_unit_of_another_kind_is_refused_naming_the_unit_expected(
        typed: str, unit: str, word: str, got: str, expected: str) -> None:
    with pytest.raises(TypedError) as err:
        parse(typed, unit, word=word)
    assert err.value.key == "typed.wrong_unit"
    assert err.value.fields["got"] == got and err.value.fields["unit"] == expected
    assert err.value.fields["example"].endswith(expected)


@pytest.mark.parametrize(("typed", "unit", "key"), [
    ("24 ms", "", "typed.wrong_unit_plain"),
    ("12 GB", "%", "typed.wrong_unit_percent"),  # not 'the answer is in %'
    ("12 ms", "percent", "typed.wrong_unit_percent"),
])
def test_a_unit_for_a_plain_number_or_a_percentage_is_refused_saying_so(
        typed: str, unit: str, key: str) -> None:
    with pytest.raises(TypedError) as err:
        parse(typed, unit)
    assert err.value.key == key and "unit" not in err.value.fields


def test_time_in_another_prefix_is_converted() -> None:
    assert parse("0.066 s", "ms").values == pytest.approx((66.0,))
    assert parse("66 msec", "ms").values == pytest.approx((66.0,))
    assert parse("66000 us", "ms").values == pytest.approx((66.0,))


def test_bytes_in_another_decimal_prefix_are_read_by_1000s_then_by_1024s() -> None:
    """'2048 MB' for 2 GB: decimal (2.048 GB, 2.4 % off: wrong at 2 %) and binary (2 GB)
    readings are both taken, the decimal one first; an IEC unit is exact."""
    assert parse("2048 MB", "GB").values == pytest.approx((2.048, 2.0))
    assert match(parse("2048 MB", "GB"), [2.0, 4.0], 0.02) == 0
    assert match(parse("2000 MB", "GB"), [2.0, 4.0], 0.02) == 0
    assert parse("2 GiB", "GB").values == pytest.approx((2**31 / 1e9,))
    assert match(parse("2 GiB", "GB"), [2.0], 0.02) is None
    assert parse("2 GB", "GB").values == pytest.approx((2.0,))
    assert parse("0.5 TB", "GB").values == pytest.approx((500.0, 512.0))


def test_the_echo_carries_the_options_own_word() -> None:
    assert shown(680.0, "", "nm") == "680 nm"
    assert shown(1.5, "GB", "nm") == "1.5 GB"


@pytest.mark.parametrize(("typed", "unit", "options", "meant"), [
    ("4.096", "", [4096.0, 2048.0], "4096"),
    ("4.096 MB", "MB", [4096.0, 2048.0], "4096 MB"),
    ("۴٫۰۹۶", "", [4096.0], "4096"),  # Urdu digits and decimal mark
    ("12.288", "", [100.0, 12288.0], "12288"),  # a named mistake's value: on screen too
    ("4.096", "", [4.096, 4096.0], None),  # 4.096 is an option: a decimal point, judged
    ("4.096", "", [5000.0], None),  # 4096 is no option either: judged as typed
    ("4.0960", "", [4096.0], None),  # not three digits after the dot
    ("4.096e3", "", [4096.0, 2.0], None),  # an exponent: the dot is a decimal point
])
def test_a_thousands_dot_is_asked_about_never_taken(typed: str, unit: str,
                                                    options: list[float],
                                                    meant: str | None) -> None:
    """'4.096' is 4.096 always (a dot is the decimal point in these quizzes); where 4096
    is one of the options and 4.096 none, the learner is asked, and nothing is judged."""
    reading = parse(typed, unit)
    assert reading.values[0] == pytest.approx(float(typed.split()[0].replace("۴٫۰۹۶", "4.096")))
    hint = thousands_dot(reading, options, 0.02)
    if meant is None:
        assert hint is None
    else:
        assert hint is not None and hint.key == "typed.thousands_dot"
        assert hint.fields["meant"] == meant

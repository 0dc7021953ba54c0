"""Identifiers derived from names written as prose (`codegen.read.identifiers`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegen import parse_spec_text
from codegen.read.identifiers import ascii_name, identifier, is_identifier, unspelled


@pytest.mark.parametrize(
    ("written", "derived"),
    [
        ("PLAN_APPROVED", "PLAN_APPROVED"),
        ("code_review_failed", "code_review_failed"),
        ("paused-manual", "paused_manual"),
        ("Story newly created", "story_newly_created"),
        ("Facilitator archives (read-only retention)", "facilitator_archives_read_only_retention"),
        ("PAYMENT HELD", "PAYMENT_HELD"),
        ("3 retries", "_3_retries"),
        ("class", "class_"),
        ("Créé", "cree"),
        ("—", ""),
    ],
)
def test_a_name_written_as_prose_gets_one_identifier(written: str, derived: str) -> None:
    assert identifier(written) == derived
    assert derived == "" or is_identifier(derived)


@pytest.mark.parametrize(
    ("written", "derived"),
    [
        ("Straße", "strasse"),
        ("STRAẞE", "STRASSE"),
        ("Søknad sendt", "soknad_sendt"),
        ("Płatność", "platnosc"),
        ("Æsir", "aesir"),
        ("ÆSIR", "AESIR"),
        ("Œuvre", "oeuvre"),
        ("Đakovo", "dakovo"),
        ("Þing", "thing"),
        ("Guðrún", "gudrun"),
        ("I\u015f\u0131k", "isik"),  # Turkish, with a dotless i
        ("Ǽ", "AE"),  # Æ with a mark: the mark taken off, then Æ folded
    ],
)
def test_a_latin_letter_with_no_ascii_base_is_folded_not_dropped(
    written: str, derived: str
) -> None:
    """`Straße` was `strae`, `Søknad sendt` `sknad_sendt`, `Æsir` `sir`: the letter that
    has no ASCII base to take an accent off vanished. It is written as it is without one."""
    assert identifier(written) == derived
    assert unspelled(written) == ""


def test_a_name_in_another_script_keeps_its_latin_words_folded_in_the_name_offered() -> None:
    assert unspelled("Этап Straße") == "Этап"
    assert ascii_name("Этап Straße") == "Etap Strasse"
    assert ascii_name("下書き Straße") == ""


def test_names_read_from_a_table_fold_so_and_the_note_shows_their_spelling() -> None:
    text = "# M\n\n| From | Event | To |\n|---|---|---|\n| Straße | Søknad sendt | Æsir |\n"
    spec = parse_spec_text(text + "| Æsir | back | Straße |\n")
    assert [s.name for s in spec.states] == ["strasse", "aesir"]
    assert "soknad_sendt" in [s.name for s in spec.spells]
    (note,) = [n for n in spec.notices if n.kind == "names_from_tables"]
    assert (
        "'Straße' as strasse" in note.message and "'Søknad sendt' as soknad_sendt" in note.message
    )


def test_the_folding_to_ascii_has_one_home() -> None:
    """Identifiers, the generated module's names and the hints that look for words all
    fold with `identifiers.folded`: no other module takes accents off on its own."""
    root = Path(__file__).resolve().parents[2]
    elsewhere = [
        str(path.relative_to(root))
        for folder in ("codegen", "src")
        for path in sorted((root / folder).rglob("*.py"))
        if path.name != "identifiers.py" and "NFKD" in path.read_text(encoding="utf-8")
    ]
    assert elsewhere == []

"""Findings: what the verifier reports, and the one table of each kind's severity.

`SEVERITY` gives each finding kind's severity; a finding may carry its own where
one kind covers cases of different weight.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


SEVERITY: dict[str, Severity] = {
    # the file cannot be read (exit status 2)
    "parse_error": Severity.ERROR,
    # coverage and names
    # (a name that does not resolve first: the cells it leaves empty follow from it)
    "unknown_state": Severity.ERROR,
    "unknown_spell": Severity.ERROR,
    "unknown_condition": Severity.ERROR,
    "always_holds": Severity.WARNING,
    "own_code": Severity.ERROR,
    "own_guard_joined": Severity.WARNING,
    "own_guard_noted": Severity.WARNING,
    "undefined_field": Severity.ERROR,
    "ga_notation": Severity.ERROR,
    "family_order": Severity.WARNING,
    "missing_cell": Severity.ERROR,
    "unlisted_rejected": Severity.INFO,
    "duplicate_id": Severity.ERROR,
    "duplicate_state": Severity.ERROR,
    "duplicate_spell": Severity.ERROR,
    "spell_shadowed": Severity.ERROR,
    "trigger_renamed": Severity.WARNING,
    "former_name": Severity.ERROR,
    # behaviour under the conditions
    "gap": Severity.ERROR,
    "unlisted_gap": Severity.INFO,
    "conflict": Severity.ERROR,
    "dead_rule": Severity.ERROR,
    "unreachable_state": Severity.ERROR,
    "overlap": Severity.WARNING,
    "dead_end": Severity.WARNING,
    "cannot_complete": Severity.WARNING,
    "never_counted": Severity.WARNING,
    "never_set": Severity.WARNING,
    "shadowed_rule": Severity.INFO,
    "cell_too_complex": Severity.WARNING,
    # consistency of what is written
    "valid_actions_mismatch": Severity.WARNING,
    "misleading_advice": Severity.WARNING,
    "suffix_preservation": Severity.WARNING,
    "action_path": Severity.ERROR,
    "action_state": Severity.WARNING,
    # what the actions do to the files
    "action_no_effect": Severity.WARNING,
    "indicators_broken": Severity.WARNING,
    "indicators_unchecked": Severity.INFO,
    "action_input": Severity.WARNING,
    "untouched_checklist": Severity.WARNING,
    "template_placeholder": Severity.WARNING,
    "near_file_name": Severity.WARNING,
    "id_pattern": Severity.INFO,
    "unread_verb": Severity.WARNING,
    "unknown_action": Severity.INFO,
    "missing_response": Severity.INFO,
    "response_unread": Severity.WARNING,
    "response_placeholder": Severity.WARNING,
    "mixed_and_or": Severity.WARNING,
    "consolidation": Severity.INFO,
    "no_goal": Severity.INFO,
    "similar_names": Severity.WARNING,
    # how the markdown was read
    "detached_row": Severity.ERROR,
    "unknown_term": Severity.ERROR,
    "term_conflict": Severity.ERROR,
    "name_recovered": Severity.INFO,
    "rendered_differently": Severity.WARNING,
    "unread_counter": Severity.WARNING,
    "column_choice": Severity.INFO,
    "table_skipped": Severity.INFO,
    "table_unread": Severity.WARNING,
    "blocked_reasons": Severity.INFO,
    "refusal_agrees": Severity.INFO,
    "summary_table": Severity.INFO,
    "summary_disagrees": Severity.WARNING,
    "unknown_column": Severity.WARNING,
    "indicators_unread": Severity.INFO,
    "indicators_alike": Severity.WARNING,
    "names_from_tables": Severity.INFO,
    "ragged_row": Severity.WARNING,
    "target_note": Severity.WARNING,
    "unlisted_unread": Severity.WARNING,
    "states_unread": Severity.WARNING,
    "event_column": Severity.WARNING,
    # a spec's Mermaid state diagram against its tables
    "diagram_disagrees": Severity.WARNING,
    "diagram_unread": Severity.INFO,
    "trigger_note": Severity.WARNING,
    "event_parameters": Severity.INFO,
    "column_note": Severity.WARNING,
    "heading_limit": Severity.WARNING,
    "slash_events": Severity.WARNING,
    "keeping_unread": Severity.WARNING,
    "list_unread": Severity.WARNING,
    "keeping_moves": Severity.WARNING,
    "state_file_unread": Severity.WARNING,
    # a spec's State Guards list against its tables
    "guard_disagrees": Severity.WARNING,
    "guard_unread": Severity.WARNING,
    "usage_unread": Severity.INFO,
}


@dataclass(frozen=True)
class Finding:
    kind: str
    message: str
    line: int | None = None
    rule: str | None = None
    state: str | None = None
    spell: str | None = None
    world: str | None = None
    level: Severity | None = field(default=None, compare=False)
    # Every state a grouped finding covers (`state` is the first of them).
    states: tuple[str, ...] = ()

    @property
    def severity(self) -> Severity:
        return self.level if self.level is not None else SEVERITY[self.kind]

"""Flow-step coverage as Rasa Pro 3.21 computes and writes it (``--coverage-report``).

Derived from Rasa Pro 3.21.0's source (``pip download rasa-pro==3.21.0 --no-deps``, read):

- testable steps: ``rasa/shared/core/flows/flow.py`` ``Flow.extract_all_paths`` /
  ``_go_over_steps`` (collect, action, call and link steps are nodes; set_slots and noop are
  only followed; a called flow's steps count for the called flow; pattern flows are not
  walked, ``FlowsList.user_flows``); step ids ``FlowStep.default_id``
  (``{flow}_{idx}_{postfix}``); line ranges ``yaml_flows_io.line_number_constructor``
  (``start+1``-``end`` of the step's YAML node, checked against ruamel.yaml 0.19.1, the
  version Rasa Pro 3.21 pins);
- tested steps: ``rasa/e2e_test/e2e_test_runner.py``
  ``_get_tested_flow_paths_and_commands`` (bot and custom-action events with ``step_id``
  and ``active_flow`` metadata, ``flow_started`` with ``parent_flow_id``/``parent_step_id``
  marks the call/link step, a ``slot`` event marks the collect step of the open flow);
- the report: ``rasa/e2e_test/e2e_test_coverage_report.py`` ``create_coverage_report``,
  ``_calculate_coverage`` ((steps - missing) / steps * 100), ``_append_total_row``
  (``f"{...:.2f}%"``), ``_reorder_columns``; the files: ``rasa/e2e_test/utils/io.py``
  ``_save_coverage_report`` (``to_csv(index=False)``) and ``_save_tested_commands_histogram``.

The fixture ``tests/fixtures/coverage/flows.yml`` holds 23 testable steps (hand count:
transfer_money 8, check_balance 3 (its set_slots step not counted), authenticate 3 (its noop
not counted), replace_card 3, add_contact 6 (``utter_never_reached`` is skipped by ``next:``
and is on no path); pattern_chitchat is not a user flow). The passed tests below visit 20:
20 / 23 = 86.95652173913044 % -> ``86.96%``, and leave out ``utter_insufficient_funds``
(lines 12-13), ``utter_wrong_pin`` (49-51) and ``utter_add_contact_cancelled`` (75-77).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nlu_tui.formats.flow_steps import flow_nodes, read_flow_steps
from nlu_tui.reports.coverage_files import coverage_csv, write_coverage_files
from nlu_tui.scoring.flow_coverage import (
    command_histogram,
    coverage_report,
    visited_from_events,
)

FLOWS = Path(__file__).parent / "fixtures" / "coverage" / "flows.yml"


def bot(flow: str, step: str) -> dict[str, Any]:
    return {"event": "bot", "text": "...", "metadata": {"active_flow": flow, "step_id": step}}


def action(name: str, flow: str, step: str) -> dict[str, Any]:
    return {"event": "action", "name": name, "metadata": {"active_flow": flow, "step_id": step}}


def started(flow: str, parent: tuple[str, str] | None = None) -> dict[str, Any]:
    meta = {"parent_flow_id": parent[0], "parent_step_id": parent[1]} if parent else {}
    return {"event": "flow_started", "flow_id": flow, "metadata": meta}


def user(*commands: dict[str, Any]) -> dict[str, Any]:
    return {"event": "user", "text": "hi", "parse_data": {"commands": list(commands)}}


START = {"command": "start flow", "flow": "transfer_money"}
SET = {"command": "set slot", "name": "amount", "value": 5}

PASSED = [
    [  # transfer confirmed; the amount prefilled (a slot event marks its collect step)
        started("pattern_collect_information"),  # patterns open no path
        user(START, SET),
        started("transfer_money"),
        bot("transfer_money", "transfer_money_0_collect_recipient"),
        {"event": "slot", "name": "amount", "value": 5},
        action("action_check_balance", "transfer_money", "transfer_money_2_action_check_balance"),
        action("action_listen", "transfer_money", "confirm"),  # not custom: not counted
        bot("transfer_money", "confirm"),
        action("action_transfer", "transfer_money", "transfer_money_5_action_transfer"),
        bot("transfer_money", "transfer_money_6_utter_transfer_done"),
        {"event": "flow_completed", "flow_id": "transfer_money", "step_id": "x"},
    ],
    [
        user(START),
        started("transfer_money"),
        bot("transfer_money", "transfer_money_7_utter_transfer_cancelled"),
    ],
    [  # a call: the parent's call step is marked by the child's flow_started metadata
        user({"command": "start flow", "flow": "check_balance"}),
        started("check_balance"),
        started("authenticate", ("check_balance", "check_balance_1_call_authenticate")),
        {"event": "slot", "name": "pin", "value": "1234"},
        bot("authenticate", "authenticate_2_utter_logged_in"),
        {"event": "flow_completed", "flow_id": "authenticate"},
        action("action_get_balance", "check_balance", "check_balance_2_action_get_balance"),
        bot("check_balance", "check_balance_3_utter_balance"),
    ],
    [  # a link
        started("replace_card"),
        bot("replace_card", "replace_card_0_collect_card_type"),
        action("action_order_card", "replace_card", "replace_card_1_action_order_card"),
        started("check_balance", ("replace_card", "replace_card_2_link_check_balance")),
        user({"command": "chitchat"}, {"command": "repeat"}),
    ],
    [
        started("add_contact"),
        {"event": "slot", "name": "handle", "value": "@a"},
        {"event": "slot", "name": "name", "value": "A"},
        bot("add_contact", "add_contact_3_collect_confirm_contact"),
        action("action_add_contact", "add_contact", "add_contact_4_action_add_contact"),
        bot("add_contact", "add_contact_5_utter_contact_added"),
    ],
]

EXPECTED_CSV = (
    "Flow Name,Coverage,Num Steps,Missing Steps,Line Numbers for Missing Steps\n"
    f"{FLOWS}::transfer money,87.5,8,1,[12-13]\n"
    f"{FLOWS}::check your balance,100.0,3,0,[]\n"
    f"{FLOWS}::authenticate,66.66666666666666,3,1,[49-51]\n"
    f"{FLOWS}::replace card,100.0,3,0,[]\n"
    f"{FLOWS}::add contact,83.33333333333334,6,1,[75-77]\n"
    "Total,86.96%,23,3,\n"
)


def graph():  # type: ignore[no-untyped-def]
    return read_flow_steps([FLOWS])


def test_step_ids_and_lines_as_rasa() -> None:
    g = graph()
    steps = {s.id: s.lines for f in g.flows.values() for s in f.steps}
    assert steps["transfer_money_1_collect_amount"] == "6-7"
    assert steps["confirm"] == "15-27"  # a custom id; the step spans its branches
    assert steps["transfer_money_3_utter_insufficient_funds"] == "12-13"
    assert steps["check_balance_0_set_slots"] == "32-33"
    assert steps["add_contact_1_utter_never_reached"] == "64-64"
    assert steps["add_name"] == "65-66"


def test_testable_steps_counted_as_rasa() -> None:
    nodes = flow_nodes(graph())
    assert {k: len(v) for k, v in nodes.items()} == {
        "transfer_money": 8,
        "check_balance": 3,
        "authenticate": 3,
        "replace_card": 3,
        "add_contact": 6,
    }
    ids = {n.step_id for v in nodes.values() for n in v}
    assert "check_balance_0_set_slots" not in ids and "authenticate_1_noop" not in ids
    assert "add_contact_1_utter_never_reached" not in ids
    assert sum(len(v) for v in nodes.values()) == 23


def test_coverage_23_steps_20_covered() -> None:
    g = graph()
    tests = [visited_from_events(events, g) for events in PASSED]
    report = coverage_report(g, tests)
    assert report is not None
    assert (report.total_steps, report.total_missing) == (23, 3)
    assert f"{report.total_coverage:.2f}%" == "86.96%"
    missing = {r.flow_id: (r.uncovered, r.missing_lines) for r in report.rows if r.missing}
    assert missing == {
        "transfer_money": (["transfer_money_3_utter_insufficient_funds"], ["12-13"]),
        "authenticate": (["authenticate_3_utter_wrong_pin"], ["49-51"]),
        "add_contact": (["add_contact_6_utter_add_contact_cancelled"], ["75-77"]),
    }
    assert coverage_csv(report) == EXPECTED_CSV


def test_histogram_counts_rasa_commands_only() -> None:
    g = graph()
    counts = command_histogram([visited_from_events(events, g) for events in PASSED])
    assert counts == {
        "knowledge": 0,
        "start flow": 3,
        "set slot": 1,
        "clarify": 0,
        "cancel flow": 0,
        "chitchat": 1,
        "skip question": 0,
    }  # "repeat" is not one of Rasa's histogram commands


def test_empty_group_is_the_header_alone() -> None:
    g = graph()
    assert coverage_report(g, []) is None
    assert coverage_report(g, [visited_from_events([user(START)], g)]) is None  # no step
    assert coverage_csv(None) == (
        "Flow Name,Coverage,Num Steps,Missing Steps,Line Numbers for Missing Steps\n"
    )


def test_files_written_with_rasa_names(tmp_path: Path) -> None:
    g = graph()
    passed = [visited_from_events(events, g) for events in PASSED]
    failed = [visited_from_events([started("transfer_money"), bot("transfer_money", "x")], g)]
    written = write_coverage_files(
        tmp_path,
        {"passed": coverage_report(g, passed), "failed": coverage_report(g, failed)},
        {"passed": command_histogram(passed), "failed": command_histogram(failed)},
    )
    assert sorted(p.name for p in written) == [
        "commands_histogram_for_failed_tests.png",
        "commands_histogram_for_passed_tests.png",
        "coverage_report_for_failed_tests.csv",
        "coverage_report_for_passed_tests.csv",
    ]
    assert (tmp_path / "coverage_report_for_passed_tests.csv").read_text() == EXPECTED_CSV
    failed_csv = (tmp_path / "coverage_report_for_failed_tests.csv").read_text()
    assert (
        failed_csv.splitlines()[1]
        == f'{FLOWS}::transfer money,0.0,8,8,"[5-5, 6-7, 8-14, 12-13, 15-27, 21-21, 22-23, 25-27]"'
    )
    assert failed_csv.splitlines()[-1] == "Total,0.00%,23,23,"
    png = (tmp_path / "commands_histogram_for_passed_tests.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000

"""Every option of every subcommand, as the Markdown reference in ``docs/cli.md``.

The reference is made from the parser itself (:func:`tricount.cli.build_parser`), so it
cannot list an option that does not exist or miss one that does;
``tests/test_cli_front_door.py`` checks that ``docs/cli.md`` holds it as printed by
``python -m tricount.cli.reference``.
"""

from __future__ import annotations

import argparse

__all__ = ["option_reference"]


def _subparsers(parser):
    for action in parser._actions:  # argparse keeps its subparsers only here
        if isinstance(action, argparse._SubParsersAction):
            yield from action.choices.items()


def _flag(action) -> str:
    if not action.option_strings:
        return action.metavar or action.dest.upper()
    names = ", ".join(action.option_strings)
    if action.nargs == 0:
        return names
    value = action.metavar or (("{" + ",".join(map(str, action.choices)) + "}")
                               if action.choices else action.dest.upper())
    return f"{names} {value}"


def _help(action) -> str:
    text = " ".join((action.help or "").split())
    if "%(" in text:
        text = text % {**vars(action), "default": action.default}
    return text.replace("|", "\\|")


def _rows(prog: str, parser, out: list) -> None:
    subs = list(_subparsers(parser))
    actions = [a for a in parser._actions if a.help != argparse.SUPPRESS
               and not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))]
    out += [f"### `{prog}`", ""]
    if actions:
        out += ["| option | what it does |", "|---|---|"]
        out += [f"| `{_flag(a)}` | {_help(a)} |" for a in actions]
    else:
        out.append("One of the subcommands below.")
    out.append("")
    for name, sub in subs:
        _rows(f"{prog} {name}", sub, out)


def option_reference() -> str:
    """The Markdown reference: a table of options a command (subcommands nested)."""
    from tricount.cli import build_parser

    out: list = []
    for name, sub in _subparsers(build_parser()):
        _rows(f"tricount {name}", sub, out)
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":
    print(option_reference(), end="")

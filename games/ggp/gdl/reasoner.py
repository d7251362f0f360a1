"""A GDL reasoner on clingo: the state machine of any rule sheet.

GDL is a logic program (Datalog with negation and function terms), so a sheet maps to
answer-set programming rule for rule: ``(<= head body...)`` becomes ``head :- body.``, ``not``
stays ``not``, ``distinct`` becomes ``!=``, each ``or`` splits a rule into one per alternative,
and ``true``/``does``/``legal``/``next``/``goal``/``terminal``/... are ordinary predicates.
Such programs are stratified, so clingo's one answer set is the model GDL means.

Grounding is the costly step, so it happens once: when the sheet defines ``base`` and
``input`` (the facts a state may hold and the moves a role may make), ``true(F)`` and
``does(R, M)`` become clingo externals over those domains, and every question (legal moves,
next state, terminal, goals) is one solve under assumptions that say which externals hold.
A state fact or move outside those domains (or a sheet without them) falls back to grounding
the sheet with the facts added, which gives the same answer more slowly.

States are frozensets of canonical fact texts (``kif.to_text``), moves are canonical move
texts. The reasoner computes what the sheet says: it does not check that a joint move is
legal (the game manager does, with ``legal``). It trusts its sheet: one that breaks GDL's
recursion restriction (``(<= (p (f ?x)) (p ?x))``) would ground forever, so give it our own
sheets or ones a person has vetted, never a stranger's text.

Example::

    >>> from games.ggp.gdl.sheets import sheet_text
    >>> reasoner = Reasoner(sheet_text("tictactoe-3player"))
    >>> reasoner.roles
    ['xplayer', 'oplayer', 'zplayer']
    >>> state = reasoner.initial()
    >>> reasoner.legal(state, "oplayer")
    ['noop']
"""

from __future__ import annotations

import itertools
import re
import threading
from collections import OrderedDict
from typing import Iterable, Mapping

import clingo

from games.ggp.gdl import kif

_IDENTIFIER = re.compile(r"[a-z][A-Za-z0-9_]*")
_NUMBER = re.compile(r"0|[1-9][0-9]{0,8}")  # clingo numbers are 32-bit; longer ones stay names
_CLINGO_WORDS = frozenset({"not"})
_MAPPED_PREFIX = "g__"
_SHOWN = ("#show legal/2. #show goal/2. #show terminal/0. #show next/1. #show role/1. #show init/1.")
_CACHE_SIZE = 256


class GdlError(ValueError):
    """A sheet the reasoner cannot use, or a question it cannot answer; ``str(err)`` says why."""


class _Names:
    """KIF constants to clingo names and back.

    Lower-case identifiers and plain numbers are themselves; anything else (``Player1``,
    ``next-cell``, ``+``) gets a name ``g__<n>`` while the sheet is read. Questions may not add
    such names: a fact or move with an unknown odd name is refused.
    """

    def __init__(self) -> None:
        self.to_clingo: dict[str, str] = {}
        self.to_kif: dict[str, str] = {}
        self.frozen = False

    def encode(self, constant: str) -> str:
        if _NUMBER.fullmatch(constant) or (_IDENTIFIER.fullmatch(constant) and constant not in _CLINGO_WORDS
                                           and not constant.startswith(_MAPPED_PREFIX)):
            return constant
        name = self.to_clingo.get(constant)
        if name is None:
            if self.frozen:
                raise GdlError(f"{constant!r} is not in the sheet's vocabulary")
            name = f"{_MAPPED_PREFIX}{len(self.to_clingo)}"
            self.to_clingo[constant] = name
            self.to_kif[name] = constant
        return name

    def decode(self, name: str) -> str:
        return self.to_kif.get(name, name)


class _Translator:
    """KIF sentences to clingo rules (text)."""

    def __init__(self, names: _Names) -> None:
        self.names = names

    def term(self, term: kif.Term, variables: dict[str, str]) -> str:
        if isinstance(term, str):
            if kif.is_variable(term):
                return variables.setdefault(term, f"V{len(variables)}")
            return self.names.encode(term)
        head = term[0]
        if not isinstance(head, str) or kif.is_variable(head):
            raise GdlError(f"{kif.to_text(term)}: a compound term starts with a function name")
        if len(term) == 1:  # (f) is read as the constant f, as GDL players do
            return self.names.encode(head)
        return f"{self.names.encode(head)}({','.join(self.term(t, variables) for t in term[1:])})"

    def atom(self, sentence: kif.Term, variables: dict[str, str]) -> str:
        if isinstance(sentence, str):
            if kif.is_variable(sentence):
                raise GdlError(f"a variable {sentence} cannot stand for a sentence")
            return self.names.encode(sentence)
        if sentence[0] in ("<=", "not", "or", "and", "distinct"):
            raise GdlError(f"{kif.to_text(sentence)}: {sentence[0]} cannot stand here")
        return self.term(sentence, variables)

    def literal(self, literal: kif.Term, variables: dict[str, str]) -> list[list[str]]:
        """The alternatives (for ``or``) of one body literal, each a list of clingo literals."""
        if isinstance(literal, tuple):
            word = literal[0]
            if word == "distinct":
                left, right = self._pair(literal, variables)
                return [[f"{left}!={right}"]]
            if word == "not":
                if len(literal) != 2:
                    raise GdlError(f"{kif.to_text(literal)}: not takes one sentence")
                inner = literal[1]
                if isinstance(inner, tuple) and inner[0] == "distinct":
                    left, right = self._pair(inner, variables)
                    return [[f"{left}={right}"]]
                return [[f"not {self.atom(inner, variables)}"]]
            if word == "or":
                return [alternative for part in literal[1:] for alternative in self.literal(part, variables)]
            if word == "and":
                return self.conjunction(literal[1:], variables)
        return [[self.atom(literal, variables)]]

    def conjunction(self, literals: Iterable[kif.Term], variables: dict[str, str]) -> list[list[str]]:
        alternatives: list[list[str]] = [[]]
        for literal in literals:
            alternatives = [done + more for done, more in itertools.product(alternatives, self.literal(literal, variables))]
        return alternatives

    def sentence(self, sentence: kif.Term) -> list[str]:
        variables: dict[str, str] = {}
        if isinstance(sentence, tuple) and sentence[0] == "<=":
            if len(sentence) < 2:
                raise GdlError("(<=) needs a head")
            head = self.atom(sentence[1], variables)
            return [f"{head} :- {', '.join(body)}." if body else f"{head}."
                    for body in self.conjunction(sentence[2:], variables)]
        return [f"{self.atom(sentence, variables)}."]

    def _pair(self, literal: tuple, variables: dict[str, str]) -> tuple[str, str]:
        if len(literal) != 3:
            raise GdlError(f"{kif.to_text(literal)}: distinct takes two terms")
        return self.term(literal[1], variables), self.term(literal[2], variables)


def _ground(program: str, facts: str = "") -> clingo.Control:
    messages: list[str] = []
    control = clingo.Control(["--warn=none"], logger=lambda _code, message: messages.append(message.strip()),
                             message_limit=5)
    try:
        control.add("base", [], program + facts)
        control.ground([("base", [])])
    except RuntimeError as err:
        raise GdlError(f"clingo refused the sheet: {'; '.join(messages) or err}") from None
    return control


class Reasoner:
    """The state machine a GDL sheet describes (see the module docstring)."""

    def __init__(self, gdl_text: str) -> None:
        self._names = _Names()
        translator = _Translator(self._names)
        sentences = kif.parse(gdl_text)
        rules = [rule for sentence in sentences for rule in translator.sentence(sentence)]
        self._names.frozen = True
        self._program = "\n".join(rules) + "\n" + _SHOWN + "\n"
        self._texts: dict[clingo.Symbol, str] = {}
        self._lock = threading.Lock()
        self._cache: OrderedDict[frozenset[str], tuple[dict[str, list[str]], bool, dict[str, list[int]]]] = OrderedDict()
        static = self._model(_ground(self._program))
        found = {self._text(s.arguments[0]) for s in static if s.name == "role"}
        # The sheet's order (clingo's is its own): role facts as written, then any derived roles.
        written = [kif.to_text(s[1]) for s in sentences if isinstance(s, tuple) and len(s) == 2 and s[0] == "role"]
        self.roles: list[str] = [r for r in dict.fromkeys(written) if r in found] + sorted(found - set(written))
        if not self.roles:
            raise GdlError("the sheet names no role")
        self._initial = frozenset(self._text(s.arguments[0]) for s in static if s.name == "init")
        self._control, self._externals = self._ground_with_externals()
        self.fresh_groundings = 0  # questions answered by grounding afresh (outside base/input)

    # -- the state machine --------------------------------------------------------------------
    def initial(self) -> frozenset[str]:
        return self._initial

    def legal(self, state: Iterable[str], role: str) -> list[str]:
        """The legal moves of ``role`` in ``state``, sorted."""
        self._check_role(role)
        return list(self._analyse(frozenset(state))[0].get(role, []))

    def next(self, state: Iterable[str], joint: Mapping[str, str]) -> frozenset[str]:
        """The state after every role plays its move in ``joint`` (one move per role)."""
        if set(joint) != set(self.roles):
            raise GdlError(f"a joint move has one move for each of {', '.join(self.roles)}; got {', '.join(joint)}")
        does = [kif.to_text(("does", role, kif.parse_term(move, max_length=1000))) for role, move in joint.items()]
        symbols = self._solve(frozenset(state), does)
        return frozenset(self._text(s.arguments[0]) for s in symbols if s.name == "next")

    def terminal(self, state: Iterable[str]) -> bool:
        return self._analyse(frozenset(state))[1]

    def goal(self, state: Iterable[str], role: str) -> int:
        """The goal value of ``role``; ``GdlError`` unless the sheet gives it exactly one."""
        self._check_role(role)
        values = self._analyse(frozenset(state))[2].get(role, [])
        if len(values) != 1:
            raise GdlError(f"the sheet gives {role} {len(values)} goal values here, not one: {values}")
        return values[0]

    # -- solving ----------------------------------------------------------------------------------
    def _analyse(self, state: frozenset[str]) -> tuple[dict[str, list[str]], bool, dict[str, list[int]]]:
        """Legal moves, terminal and goals of ``state``, from one solve (cached)."""
        with self._lock:
            found = self._cache.get(state)
            if found is not None:
                self._cache.move_to_end(state)
                return found
        legal: dict[str, list[str]] = {}
        goals: dict[str, list[int]] = {}
        terminal = False
        for symbol in self._solve(state, ()):
            if symbol.name == "legal":
                legal.setdefault(self._text(symbol.arguments[0]), []).append(self._text(symbol.arguments[1]))
            elif symbol.name == "goal":
                value = symbol.arguments[1]
                if value.type != clingo.SymbolType.Number:
                    raise GdlError(f"a goal value is a number, not {self._text(value)}")
                goals.setdefault(self._text(symbol.arguments[0]), []).append(value.number)
            elif symbol.name == "terminal":
                terminal = True
        result = ({role: sorted(moves) for role, moves in legal.items()}, terminal, goals)
        with self._lock:
            self._cache[state] = result
            if len(self._cache) > _CACHE_SIZE:
                self._cache.popitem(last=False)
        return result

    def _solve(self, state: frozenset[str], does: Iterable[str]) -> list[clingo.Symbol]:
        wanted = [f"(true {fact})" for fact in state] + list(does)
        if self._control is not None and all(text in self._externals for text in wanted):
            held = {self._externals[text] for text in wanted}
            assumptions = [literal if literal in held else -literal for literal in self._externals.values()]
            with self._lock:
                return self._model(self._control, assumptions)
        program = "".join(f"{self._clingo_atom(text)}.\n" for text in wanted)
        self.fresh_groundings += 1
        return self._model(_ground(self._program, program))

    def _model(self, control: clingo.Control, assumptions: list[int] | None = None) -> list[clingo.Symbol]:
        with control.solve(yield_=True, assumptions=assumptions or []) as handle:
            for model in handle:
                return list(model.symbols(shown=True))
        raise GdlError("the sheet has no model for this state (a contradiction in it)")

    def _ground_with_externals(self) -> tuple[clingo.Control | None, dict[str, int]]:
        """The sheet ground once with ``true``/``does`` as externals over ``base``/``input``."""
        control = _ground(self._program, "#external true(F) : base(F).\n#external does(R,M) : input(R,M).\n")
        externals: dict[str, int] = {}
        for name, arity in (("true", 1), ("does", 2)):
            for atom in control.symbolic_atoms.by_signature(name, arity):
                if atom.is_external:
                    control.assign_external(atom.literal, None)
                    externals[self._text(atom.symbol)] = atom.literal
        if not any(text.startswith("(true ") for text in externals):
            return None, {}
        return control, externals

    # -- texts ------------------------------------------------------------------------------------
    def _text(self, symbol: clingo.Symbol) -> str:
        text = self._texts.get(symbol)
        if text is None:
            text = kif.to_text(self._term(symbol))
            if len(self._texts) < 1_000_000:
                self._texts[symbol] = text
        return text

    def _term(self, symbol: clingo.Symbol) -> kif.Term:
        if symbol.type == clingo.SymbolType.Number:
            return str(symbol.number)
        if symbol.type != clingo.SymbolType.Function or not symbol.name:
            raise GdlError(f"clingo answered {symbol}, which is no GDL term")
        name = self._names.decode(symbol.name)
        if not symbol.arguments:
            return name
        return (name, *(self._term(argument) for argument in symbol.arguments))

    def _clingo_atom(self, text: str) -> str:
        return _Translator(self._names).atom(kif.parse_term(text, max_length=10_000), {})

    def _check_role(self, role: str) -> None:
        if role not in self.roles:
            raise GdlError(f"{role!r} is not a role of this sheet ({', '.join(self.roles)})")

"""ECMA-262 regular expressions (the subset JSON Schema patterns use) compiled into DFAs over classes of
Unicode scalars, for scripts/gen-lottie-schema.

Supported: `^` and `$` at the ends, literals, `.`, `\\w \\W \\d \\D`, escaped punctuation and `\\n \\r \\t \\f \\v`,
classes `[...]` with ranges and negation, groups `(...)` and `(?:...)`, `|`, and the quantifiers `? * + {n} {n,}
{n,m}` (lazy or not: the same language). Anything else raises SchemaError, so that no pattern is dropped.
Meaning as in ECMA-262: `.` excludes line terminators, `\\w` and `\\d` are ASCII, `$` is the end of the input.
"""


class SchemaError(Exception):
    """A schema (or a pattern in it) that the generator does not implement."""


# --- regular expressions (ECMA-262 subset) -> DFA --------------------------------------------------------

MAX_SCALAR = 0x10FFFF
LINE_TERMINATORS = [(0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029)]
WORD = [(0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)]
DIGIT = [(0x30, 0x39)]


def normalize(ranges):
    out = []
    for lo, hi in sorted(ranges):
        if out and lo <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def complement(ranges):
    out, start = [], 0
    for lo, hi in normalize(ranges):
        if lo > start:
            out.append((start, lo - 1))
        start = hi + 1
    if start <= MAX_SCALAR:
        out.append((start, MAX_SCALAR))
    return out


class RegexParser:
    """Parses a pattern into a tree: ("set", ranges), ("seq", [..]), ("alt", [..]), ("repeat", node, min, max)."""

    def __init__(self, source):
        self.source, self.pos = source, 0

    def fail(self, message):
        raise SchemaError(f"pattern {self.source!r}: {message} at offset {self.pos}")

    def peek(self):
        return self.source[self.pos] if self.pos < len(self.source) else None

    def take(self):
        char = self.peek()
        self.pos += 1
        return char

    def parse(self):
        anchored_start = self.source.startswith("^")
        if anchored_start:
            self.pos = 1
        body = self.alternation()
        anchored_end = False
        if self.peek() == "$":
            self.pos += 1
            anchored_end = True
        if self.pos != len(self.source):
            self.fail("unsupported construct (anchors only at the ends)")
        return anchored_start, anchored_end, body

    def alternation(self):
        branches = [self.sequence()]
        while self.peek() == "|":
            self.pos += 1
            branches.append(self.sequence())
        return ("alt", branches) if len(branches) > 1 else branches[0]

    def sequence(self):
        items = []
        while self.peek() is not None and self.peek() not in "|)":
            if self.peek() == "$" and self.pos == len(self.source) - 1:
                break
            items.append(self.quantified(self.atom()))
        return ("seq", items)

    def atom(self):
        char = self.take()
        if char == "(":
            if self.source.startswith("?:", self.pos):
                self.pos += 2
            elif self.peek() == "?":
                self.fail("lookaround and named groups are not supported")
            inner = self.alternation()
            if self.take() != ")":
                self.fail("missing ')'")
            return inner
        if char == "[":
            return ("set", self.char_class())
        if char == ".":
            return ("set", complement(LINE_TERMINATORS))
        if char == "\\":
            return ("set", self.escape(in_class=False))
        if char in "^$*+?{}])":
            self.fail(f"unexpected {char!r}")
        return ("set", [(ord(char), ord(char))])

    def escape(self, in_class):
        char = self.take()
        if char is None:
            self.fail("pattern ends in '\\'")
        classes = {"w": WORD, "W": complement(WORD), "d": DIGIT, "D": complement(DIGIT)}
        if char in classes:
            return classes[char]
        controls = {"n": 0x0A, "r": 0x0D, "t": 0x09, "f": 0x0C, "v": 0x0B}
        if char in controls:
            return [(controls[char], controls[char])]
        if char in "^$\\.*+?()[]{}|/-":
            return [(ord(char), ord(char))]
        self.fail(f"unsupported escape '\\{char}'")

    def char_class(self):
        negated = self.peek() == "^"
        if negated:
            self.pos += 1
        ranges, first = [], True
        while True:
            char = self.take()
            if char is None:
                self.fail("missing ']'")
            if char == "]" and not first:
                break
            first = False
            if char == "\\":
                low = self.escape(in_class=True)
            else:
                low = [(ord(char), ord(char))]
            if self.peek() == "-" and self.pos + 1 < len(self.source) and self.source[self.pos + 1] != "]":
                self.pos += 1
                high_char = self.take()
                high = self.escape(in_class=True) if high_char == "\\" else [(ord(high_char), ord(high_char))]
                if len(low) != 1 or len(high) != 1 or low[0][0] != low[0][1] or high[0][0] != high[0][1]:
                    self.fail("a range needs single characters at both ends")
                if low[0][0] > high[0][0]:
                    self.fail("range out of order")
                ranges.append((low[0][0], high[0][0]))
            else:
                ranges.extend(low)
        ranges = normalize(ranges)
        return complement(ranges) if negated else ranges

    def quantified(self, node):
        char = self.peek()
        bounds = None
        if char == "*":
            bounds = (0, None)
        elif char == "+":
            bounds = (1, None)
        elif char == "?":
            bounds = (0, 1)
        elif char == "{":
            end = self.source.find("}", self.pos)
            if end < 0:
                self.fail("missing '}'")
            text = self.source[self.pos + 1:end]
            parts = text.split(",")
            try:
                low = int(parts[0])
                high = low if len(parts) == 1 else (None if parts[1] == "" else int(parts[1]))
            except ValueError:
                self.fail(f"bad quantifier {{{text}}}")
            if len(parts) > 2 or (high is not None and (high < low or high > 1000)):
                self.fail(f"unsupported quantifier {{{text}}}")
            self.pos = end
            bounds = (low, high)
        if bounds is None:
            return node
        self.pos += 1
        if self.peek() == "?":  # lazy: the same language
            self.pos += 1
        return ("repeat", node, bounds[0], bounds[1])


class NFA:
    def __init__(self):
        self.epsilon, self.edges = [], []  # per state: [targets], [(ranges, target)]

    def state(self):
        self.epsilon.append([])
        self.edges.append([])
        return len(self.epsilon) - 1

    def build(self, node):
        """Returns (start, end) of a fragment for node."""
        kind = node[0]
        if kind == "set":
            start, end = self.state(), self.state()
            self.edges[start].append((node[1], end))
            return start, end
        if kind == "seq":
            start = end = self.state()
            for item in node[1]:
                inner_start, inner_end = self.build(item)
                self.epsilon[end].append(inner_start)
                end = inner_end
            return start, end
        if kind == "alt":
            start, end = self.state(), self.state()
            for branch in node[1]:
                inner_start, inner_end = self.build(branch)
                self.epsilon[start].append(inner_start)
                self.epsilon[inner_end].append(end)
            return start, end
        _, inner, low, high = node
        start = end = self.state()
        for _ in range(low):
            inner_start, inner_end = self.build(inner)
            self.epsilon[end].append(inner_start)
            end = inner_end
        if high is None:
            inner_start, inner_end = self.build(inner)
            self.epsilon[end].append(inner_start)
            self.epsilon[inner_end].append(inner_start)
            self.epsilon[inner_end].append(end)
            return start, end
        final = self.state()
        self.epsilon[end].append(final)
        for _ in range(high - low):
            inner_start, inner_end = self.build(inner)
            self.epsilon[end].append(inner_start)
            self.epsilon[inner_end].append(final)
            end = inner_end
        return start, final

    def closure(self, states):
        stack, seen = list(states), set(states)
        while stack:
            for target in self.epsilon[stack.pop()]:
                if target not in seen:
                    seen.add(target)
                    stack.append(target)
        return frozenset(seen)


def compile_pattern(source):
    anchored_start, anchored_end, body = RegexParser(source).parse()
    nfa = NFA()
    start, end = nfa.build(body)
    anything = [(0, MAX_SCALAR)]
    if not anchored_start:
        nfa.edges[start].append((anything, start))
    if not anchored_end:
        nfa.edges[end].append((anything, end))
    cuts = {0}
    for edges in nfa.edges:
        for ranges, _ in edges:
            for lo, hi in ranges:
                cuts.add(lo)
                if hi < MAX_SCALAR:
                    cuts.add(hi + 1)
    bounds = sorted(cuts)
    states, transitions, accepting = [nfa.closure([start])], [], []
    index = {states[0]: 0}
    position = 0
    while position < len(states):
        current = states[position]
        accepting.append(end in current)
        for scalar in bounds:
            targets = [target for state in current for ranges, target in nfa.edges[state]
                       if any(lo <= scalar <= hi for lo, hi in ranges)]
            if not targets:
                transitions.append(-1)
                continue
            following = nfa.closure(targets)
            if following not in index:
                index[following] = len(states)
                states.append(following)
            transitions.append(index[following])
        position += 1
    if len(states) > 30000:
        raise SchemaError(f"pattern {source!r}: DFA too large")
    return {"source": source, "bounds": bounds, "transitions": transitions, "accepting": accepting}



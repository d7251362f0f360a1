// Roles as people see them: by mark or colour ("X", "Red"), never "xPlayer"; and texts about
// roles (a result's reason) with the players' names put in. The labels come from the server
// (games/match/labels.py) in the page's `role-labels` JSON block.

const source = document.getElementById("role-labels");
const LABELS = source ? JSON.parse(source.textContent) : {};
const ROLE_WORD = new RegExp(`\\b(${Object.keys(LABELS).sort((a, b) => b.length - a.length).join("|") || "(?!)"})\\b`, "g");

export function roleLabel(role) {
  return LABELS[role] || role;
}

/** The name of the player in `role` (from the snapshot's seats), or the role's label. */
export function playerName(seats, role) {
  const seat = seats.find((s) => s.role === role);
  return seat && seat.player ? seat.player.name : roleLabel(role);
}

/** `text` with every role name replaced by its player's name. */
export function withNames(text, seats) {
  return (text || "").replace(ROLE_WORD, (role) => playerName(seats, role));
}

// The reasons as the server stores them are English; the page's `reason-words` JSON block
// (games/match/reasons.py) words them in the page's language, clause by clause.
const wordsSource = document.getElementById("reason-words");
const WORDS = wordsSource ? JSON.parse(wordsSource.textContent) : null;
const CLAUSES = WORDS ? WORDS.clauses.map(([pattern, sentence]) => [new RegExp(`^(?:${pattern})$`), sentence]) : [];
const LEFT_CLAUSE = /^(\w+) (resigned|ran out of time|left the match|left the site)$/;

function listed(text) {
  const parts = text.split(/, | and /);
  const last = parts.pop();
  return parts.length ? interpolate(WORDS.and, { first: parts.join(", "), last }, true) : last;
}

function clauseWords(clause) {
  for (const [pattern, sentence] of CLAUSES) {
    const found = pattern.exec(clause);
    if (!found) continue;
    const values = { ...found.groups };
    if (values.roles) values.roles = listed(values.roles);
    if (values.traits) values.traits = listed(values.traits.split(" and ").map((w) => WORDS.traits[w] || w).join(" and "));
    return interpolate(sentence, values, true);
  }
  const parts = clause.split(" and ");
  const left = parts.map((part) => LEFT_CLAUSE.exec(part));
  if (parts.length > 1 && left.every(Boolean)) {
    const said = left.map(([, role, how]) => interpolate(WORDS.left[how], { role }, true));
    return interpolate(WORDS.and, { first: said.slice(0, -1).join(", "), last: said.at(-1) }, true);
  }
  return clause;
}

/** A stored reason in the page's language (as it is where the page has no table). */
export function reasonWords(reason) {
  if (!reason || !WORDS) return reason || "";
  return reason.split("; ").map(clauseWords).join("; ");
}

/** Names as a sentence lists them: "Ada", "Ada and Bob", "Ada, Bob and Cy". */
export function people(names) {
  if (names.length < 2) return names.join("");
  return interpolate(gettext("%(first)s and %(last)s"), { first: names.slice(0, -1).join(", "), last: names.at(-1) }, true);
}

/** "Aborted: not rated. Bob resigned before moving." (a casual match: "Aborted: no result. ...") */
export function abortSentence(match) {
  const head = match.rated ? gettext("Aborted: not rated.") : gettext("Aborted: no result.");
  const why = withNames(reasonWords((match.result || {}).reason), match.seats);
  return why ? `${head} ${why.charAt(0).toUpperCase()}${why.slice(1)}.` : head;
}

/** "Ada won: Bob resigned.", "Ada completed a line of x in sub-board B2 and won." (a reason that
 * starts with the winners says so itself) or "A draw: the board is full." (labels.result_sentence) */
export function resultSentence(result, seats) {
  const { winners = [], draw, reason } = result || {};
  const why = withNames(reasonWords(reason), seats);
  const joined = winners.length > 1 ? `${winners.slice(0, -1).join(", ")} and ${winners.at(-1)}` : winners[0];
  if (winners.length && !draw && new RegExp(`^${joined}\\b`).test(reason || "")) {
    const cut = why.indexOf("; ");
    const deed = cut < 0 ? why : why.slice(0, cut);
    const won = interpolate(winners.length === 1 ? gettext("%(deed)s and won") : gettext("%(deed)s and share the win"),
                            { deed }, true);
    return `${won}${cut < 0 ? "" : why.slice(cut)}.`;
  }
  if (draw || !winners.length) return why ? interpolate(gettext("A draw: %(reason)s."), { reason: why }, true) : gettext("A draw.");
  const who = interpolate(ngettext("%(players)s won", "%(players)s won", winners.length),
                          { players: people(winners.map((role) => playerName(seats, role))) }, true);
  return why ? interpolate(gettext("%(who)s: %(reason)s."), { who, reason: why }, true) : `${who}.`;
}

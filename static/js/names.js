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

/** "Aborted: not rated. Bob resigned before moving." (a casual match: "Aborted: no result. ...") */
export function abortSentence(match) {
  const head = `Aborted: ${match.rated ? "not rated" : "no result"}.`;
  const why = withNames((match.result || {}).reason, match.seats);
  return why ? `${head} ${why.charAt(0).toUpperCase()}${why.slice(1)}.` : head;
}

/** "Ada won: Bob resigned." or "A draw: the board is full." */
export function resultSentence(result, seats) {
  const { winners = [], draw, reason } = result || {};
  const who = draw || !winners.length ? "A draw" : `${winners.map((role) => playerName(seats, role)).join(" and ")} won`;
  const why = withNames(reason, seats);
  return why ? `${who}: ${why}.` : `${who}.`;
}

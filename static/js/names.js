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

/** "Ada won: Bob resigned.", "Ada completed a line of x in sub-board B2 and won." (a reason that
 * starts with the winners says so itself) or "A draw: the board is full." (labels.result_sentence) */
export function resultSentence(result, seats) {
  const { winners = [], draw, reason } = result || {};
  const why = withNames(reason, seats);
  const joined = winners.length > 1 ? `${winners.slice(0, -1).join(", ")} and ${winners.at(-1)}` : winners[0];
  if (winners.length && !draw && new RegExp(`^${joined}\\b`).test(reason || "")) {
    const cut = why.indexOf("; ");
    const won = winners.length === 1 ? "won" : "share the win";
    return cut < 0 ? `${why} and ${won}.` : `${why.slice(0, cut)} and ${won}${why.slice(cut)}.`;
  }
  const who = draw || !winners.length ? "A draw" : `${winners.map((role) => playerName(seats, role)).join(" and ")} won`;
  return why ? `${who}: ${why}.` : `${who}.`;
}

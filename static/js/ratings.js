// How a rating is written next to a name in a match, as lichess and the history rows write it:
// the rating the player brought to the match, "?" while it was provisional, then the change
// once the rated match is over ("1500? +111"). Seats carry {rating, provisional, rating_after}
// (null for guests and the computer). The player page shows the current rating instead.

export function ratingText(seat) {
  if (seat.rating === null || seat.rating === undefined) return "";
  const shown = `${seat.rating}${seat.provisional ? "?" : ""}`;
  if (seat.rating_after === null || seat.rating_after === undefined) return shown;
  const change = seat.rating_after - seat.rating;
  return `${shown} ${change >= 0 ? "+" : "-"}${Math.abs(change)}`;
}

/** A name with its rating after it, e.g. "Ada (1500?)"; a program's account says so: "Robo (bot)". */
export function nameWithRating(seat, empty = "free seat") {
  if (!seat.player) return empty;
  const name = seat.player.bot ? `${seat.player.name} (bot)` : seat.player.name;
  const rating = ratingText(seat);
  return rating ? `${name} (${rating})` : name;
}

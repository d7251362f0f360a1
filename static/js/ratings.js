// How a rating is written next to a name: "1500?" while provisional, "1512 (+12)" once a rated
// match has changed it. Seats carry {rating, provisional, rating_after} (null for guests and
// the computer).

export function ratingText(seat) {
  if (seat.rating === null || seat.rating === undefined) return "";
  const shown = `${seat.rating}${seat.provisional ? "?" : ""}`;
  if (seat.rating_after === null || seat.rating_after === undefined) return shown;
  const change = seat.rating_after - seat.rating;
  return `${seat.rating_after} (${change >= 0 ? "+" : "−"}${Math.abs(change)})`;
}

/** A name with its rating after it, e.g. "Ada (1500?)". */
export function nameWithRating(seat, empty = "free seat") {
  if (!seat.player) return empty;
  const rating = ratingText(seat);
  return rating ? `${seat.player.name} (${rating})` : seat.player.name;
}

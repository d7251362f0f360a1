// Ticking clocks. The server keeps time: each state says how many milliseconds every seat had
// when the current turn began ("since"), whose clock runs, and the server's time when the state
// was built ("now"). The page counts the running clock down from the moment the state arrived,
// so a wrong clock on this computer never matters, and a reconnect or a second server agrees.

export class Clocks {
  constructor() {
    this.clock = null;
    this.arrived = 0;
    this.nodes = new Map(); // "place role" -> {role, node}: the element showing that seat's time there
    this.timer = null;
    this.onTick = null; // called on every tick (the first-move countdown)
  }

  // A new state arrived (or the page was drawn from the embedded one).
  update(clock) {
    this.clock = clock && clock.remaining ? clock : null;
    this.arrived = performance.now();
    this.tick();
    clearInterval(this.timer);
    this.timer = this.clock && this.clock.running && !this.clock.held ? setInterval(() => this.tick(), 200) : null;
  }

  // Show ``role``'s time in ``node`` at ``place`` (the seat list, the strip over the board); the
  // lists are rebuilt now and then: the newest node of a place wins.
  attach(role, node, place = "seats") {
    this.nodes.set(`${place} ${role}`, { role, node });
  }

  // A seat's clock starts at its own first move (real time): until then it shows its full time.
  // A GGP program's play clock stands whole until the game manager sends it the step ("held").
  left(role) {
    const { remaining, running } = this.clock;
    const ms = remaining[role];
    if (role !== running || this.clock.first.includes(role) || this.clock.held) return ms;
    return Math.max(ms - this.elapsed(), 0);
  }

  elapsed() {
    return this.clock.now - this.clock.since + (performance.now() - this.arrived);
  }

  // What the seat to move has left to make its first move (null: it has moved, or no such rule).
  firstMoveLeft() {
    if (!this.clock || !this.clock.running || !this.clock.first.includes(this.clock.running)) return null;
    return Math.max(this.clock.first_ms - this.elapsed(), 0);
  }

  tick() {
    for (const { role, node } of this.nodes.values()) {
      node.hidden = !this.clock;
      if (!this.clock) continue;
      const ms = this.left(role);
      node.textContent = formatTime(ms, this.clock.kind);
      node.classList.toggle("clock--running", role === this.clock.running);
      node.classList.toggle("clock--low", (this.clock.kind === "real_time" || this.clock.kind === "per_move") && ms < 10_000);
      node.setAttribute("aria-label", interpolate(gettext("%(time)s left"), { time: spokenTime(ms) }, true));
    }
    if (this.onTick) this.onTick();
  }
}

// "4:59", "0:08.3" under ten seconds; correspondence in days and hours.
export function formatTime(ms, kind) {
  if (kind === "correspondence") {
    const hours = Math.floor(ms / 3_600_000);
    if (hours >= 24) return interpolate(gettext("%(days)s d %(hours)s h"), { days: Math.floor(hours / 24), hours: hours % 24 }, true);
    return hours >= 1 ? interpolate(gettext("%(hours)s h %(minutes)s min"), { hours, minutes: Math.floor(ms / 60_000) % 60 }, true)
      : interpolate(gettext("%(minutes)s min"), { minutes: Math.ceil(ms / 60_000) }, true);
  }
  const seconds = Math.floor(ms / 1000);
  const clock = `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;
  return ms < 10_000 ? `${clock}.${Math.floor((ms % 1000) / 100)}` : clock;
}

function spokenTime(ms) {
  const seconds = Math.round(ms / 1000);
  const minutes = Math.floor(seconds / 60);
  return minutes ? interpolate(gettext("%(minutes)s min %(seconds)s s"), { minutes, seconds: seconds % 60 }, true)
    : interpolate(gettext("%(seconds)s s"), { seconds }, true);
}

// Every page of a signed-in player opens /ws/site/: it makes them count as online, carries
// challenges both ways (the tray at the bottom of the page, wherever they are on the site)
// and the quick-game pool. A pairing, an accepted challenge, or a friend taking an invitation
// opens the match on every page that took part; an invitation that ended is said in the tray.
// Other scripts import `site` to send and to listen:
//   site.poolEnter(settings), site.poolLeave(), site.challenge(playerId, settings)
//   events: "pool" ({waiting, settings}), "error" ({code, message}), "challenge" (a challenge
//   made or received, as the server sent it: on connect for each open one, then on every change)

import { ReconnectingSocket, showSignedOut, socketUrl } from "./socket.js";

const FIRST_CONNECT_MS = 10000;

class Site extends EventTarget {
  constructor() {
    super();
    this.challenges = new Map(); // id -> challenge, as the server sent it
    this.endings = new Map(); // match id -> an invitation of this player's that ended ({match, game_name, text})
    this.userId = Number(document.body.dataset.userId) || null;
    this.socket = new ReconnectingSocket(socketUrl("/ws/site/"), { pingEvery: 20000 });
    this.socket.addEventListener("message", ({ detail }) => this.received(detail));
    this.waiting = []; // sent before the first connection opened
    this.socket.addEventListener("open", () => this.sendWaiting());
    this.tray = document.getElementById("challenge-tray");
    this.ticker = setInterval(() => this.render(), 1000);
  }

  start() {
    if (this.userId) this.socket.start();
    return this;
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }

  // A message sent while the page's first connection is still opening (a click just after the
  // page loaded) goes once the server has answered; one sent while the connection is lost, or
  // still waiting after FIRST_CONNECT_MS, is refused with a message.
  send(message) {
    if (this.socket.send(message)) return true;
    if (this.socket.connecting) {
      this.waiting.push(message);
      clearTimeout(this.waitTimer);
      this.waitTimer = setTimeout(() => this.sendWaiting(), FIRST_CONNECT_MS);
      return true;
    }
    this.offline();
    return false;
  }

  sendWaiting() {
    clearTimeout(this.waitTimer);
    const waiting = this.waiting.splice(0);
    if (waiting.length && !waiting.every((message) => this.socket.send(message))) this.offline();
  }

  offline() {
    this.emit("error", { code: "offline", message: gettext("Not connected right now; try again in a moment.") });
  }

  poolEnter(settings) { return this.send({ type: "pool_enter", ...settings }); }
  poolLeave() { return this.send({ type: "pool_leave" }); }
  challenge(to, settings) { return this.send({ type: "challenge", to, ...settings }); }

  received(message) {
    if (message.type === "challenges") {  // the first message: the server listens for this page from now on
      this.ready = true;
      this.challenges = new Map(message.challenges.map((c) => [c.id, c]));
      message.challenges.forEach((c) => this.emit("challenge", c));
    } else if (message.type === "challenge") {
      const challenge = message.challenge;
      this.emit("challenge", challenge);
      if (challenge.status === "accepted" && challenge.match) {
        location.assign(`/matches/${challenge.match}/`);
        return;
      }
      this.challenges.set(challenge.id, challenge);
      if (challenge.status !== "pending") setTimeout(() => { this.challenges.delete(challenge.id); this.render(); }, 8000);
    } else if (message.type === "signed_out") {  // this browser logged out
      showSignedOut();
      return;
    } else if (message.type === "started") {  // a match this player waited in began: a friend took the invitation
      if (location.pathname !== `/matches/${message.match}/`) location.assign(`/matches/${message.match}/`);
      return;
    } else if (message.type === "invite_ended") {  // shown until dismissed, on whatever page
      this.endings.set(message.ending.match, message.ending);
    } else if (message.type === "paired") {
      location.assign(`/matches/${message.match}/`);
      return;
    } else if (message.type === "pool") {
      this.emit("pool", message);
    } else if (message.type === "error") {
      this.emit("error", message);
      this.note = message.message;
      this.noteMatch = message.match || null; // a refusal about a match links to it
      clearTimeout(this.noteTimer);
      this.noteTimer = setTimeout(() => { this.note = null; this.render(); }, 8000);
    }
    this.render();
  }

  render() {
    if (!this.tray) return;
    const now = Date.now();
    const items = [...this.challenges.values()].map((c) => this.item(c, now));
    items.push(...[...this.endings.values()].map((ending) => this.endingItem(ending)));
    if (this.note) {
      const note = document.createElement("div");
      note.className = "challenge challenge--note";
      note.setAttribute("role", "alert");
      note.textContent = this.note;
      if (this.noteMatch) {
        const link = document.createElement("a");
        link.href = `/matches/${this.noteMatch}/`;
        link.textContent = gettext("Go to that match");
        note.append(" ", link);
      }
      items.push(note);
    }
    this.tray.replaceChildren(...items);
    this.tray.hidden = items.length === 0;
  }

  endingItem(ending) {
    const note = document.createElement("div");
    note.className = "challenge challenge--note invite-ended";
    note.setAttribute("role", "alert");
    const link = document.createElement("a");
    link.href = `/matches/${ending.match}/`;
    link.textContent = `${ending.game_name} #${ending.match}`;
    const dismiss = document.createElement("button");
    dismiss.type = "button";
    dismiss.className = "button button--secondary";
    dismiss.textContent = gettext("Dismiss");
    dismiss.addEventListener("click", () => { this.endings.delete(ending.match); this.render(); });
    note.append(`${ending.text} `, link, " ", dismiss);
    return note;
  }

  item(challenge, now) {
    const left = Math.max(0, Math.round((Date.parse(challenge.expires_at) - now) / 1000));
    const status = challenge.status === "pending" && left === 0 ? "expired" : challenge.status;
    const incoming = challenge.to.id === this.userId;
    const other = incoming ? challenge.from : challenge.to;
    const what = interpolate(challenge.settings.rated ? gettext("%(game)s (rated, %(clock)s)") : gettext("%(game)s (casual, %(clock)s)"),
                             { game: challenge.game_name, clock: challenge.clock }, true);
    const li = document.createElement("div");
    li.className = `challenge challenge--${status}`;
    li.dataset.challenge = String(challenge.id);
    const text = document.createElement("p");
    li.append(text);
    if (status !== "pending") {
      const said = incoming
        ? { declined: gettext("%(name)s's challenge to %(what)s declined."),
            cancelled: gettext("%(name)s's challenge to %(what)s was cancelled."),
            expired: gettext("%(name)s's challenge to %(what)s expired."),
            accepted: gettext("%(name)s's challenge to %(what)s was accepted.") }
        : { declined: gettext("Your challenge to %(name)s, %(what)s, declined."),
            cancelled: gettext("Your challenge to %(name)s, %(what)s, was cancelled."),
            expired: gettext("Your challenge to %(name)s, %(what)s, expired."),
            accepted: gettext("Your challenge to %(name)s, %(what)s, was accepted.") };
      text.textContent = interpolate(said[status], { name: other.name, what }, true);
      return li;
    }
    const clock = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}`;
    if (incoming) {
      text.textContent = interpolate(gettext("%(name)s challenges you to %(what)s. (%(clock)s)"), { name: other.name, what, clock }, true);
      li.append(this.button(gettext("Accept"), "challenge_accept", challenge.id, "button--primary"),
                this.button(gettext("Decline"), "challenge_decline", challenge.id, "button--secondary"));
    } else {
      text.textContent = interpolate(gettext("Waiting for %(name)s to answer your challenge: %(what)s. (%(clock)s)"),
                                     { name: other.name, what, clock }, true);
      li.append(this.button(gettext("Cancel"), "challenge_cancel", challenge.id, "button--secondary"));
    }
    return li;
  }

  button(label, type, id, style) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = `button ${style}`;
    button.textContent = label;
    button.addEventListener("click", () => this.send({ type, id }));
    return button;
  }
}

export const site = new Site().start();
window.boardhallSite = site; // for the browser console and the browser tests

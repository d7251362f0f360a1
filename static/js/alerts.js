// Telling a player it is their turn: a short sound (with a mute switch this browser remembers)
// and, while the page is hidden, a browser notification if the player allowed them. The
// permission is asked for only when the player clicks "Notify me", never on its own.

const MUTE_KEY = "boardhall.muted";
let audio = null;

export function muted() {
  return localStorage.getItem(MUTE_KEY) === "1";
}

export function yourTurn(text) {
  if (!muted()) beep();
  if (document.hidden && "Notification" in window && Notification.permission === "granted") {
    const note = new Notification(gettext("Boardhall: your turn"), { body: text, tag: "boardhall-turn" });
    note.onclick = () => { window.focus(); note.close(); };
  }
}

// The sound switch and the "Notify me" button, for the match page's controls.
export function alertControls() {
  const box = document.createElement("div");
  box.className = "alert-controls";
  const sound = document.createElement("button");
  sound.type = "button";
  sound.className = "button button--secondary button--small";
  sound.id = "sound-toggle";
  const label = () => {
    sound.textContent = muted() ? gettext("Sound off") : gettext("Sound on");
    sound.setAttribute("aria-pressed", String(!muted()));
  };
  sound.addEventListener("click", () => {
    localStorage.setItem(MUTE_KEY, muted() ? "0" : "1");
    label();
  });
  label();
  box.append(sound);
  if ("Notification" in window && Notification.permission === "default") {
    const ask = document.createElement("button");
    ask.type = "button";
    ask.className = "button button--secondary button--small";
    ask.textContent = gettext("Notify me when it is my turn");
    ask.addEventListener("click", async () => {
      await Notification.requestPermission();
      ask.remove();
    });
    box.append(ask);
  }
  return box;
}

function beep() {
  try {
    audio = audio || new AudioContext();
    const tone = audio.createOscillator();
    const gain = audio.createGain();
    tone.frequency.value = 660;
    gain.gain.setValueAtTime(0.15, audio.currentTime);
    gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.25);
    tone.connect(gain).connect(audio.destination);
    tone.start();
    tone.stop(audio.currentTime + 0.25);
  } catch {
    // No audio here (or not allowed before the first click): the title and notification remain.
  }
}

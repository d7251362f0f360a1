// The GGP players' page: each "Play" form offers its third seat (people or the computer) only
// while a three-player rule set is chosen; a two-player one has no third seat.

for (const rules of document.querySelectorAll("select.ggp-rule-set")) {
  const third = rules.form.querySelector(".third-seat");
  const fit = () => {
    const three = Number(rules.selectedOptions[0].dataset.players) > 2;
    third.hidden = !three;
    third.querySelector("select").disabled = !three;
  };
  rules.addEventListener("change", fit);
  fit();
}

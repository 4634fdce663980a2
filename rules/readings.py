"""The committed readings of RULES.md, by key. A verdict that rests on one quotes it."""

from __future__ import annotations

READINGS: dict[str, str] = {
    "pot_physical": "committed reading: 1.20(1) 'potted' is physical, any pot after the first contact meets "
    "the chain; whether it scores is the game's business",
    "note3": "committed reading: 1.20 note 3 applied from the shot_start positions; the first crossing of a "
    "ball that started on the centre line is its leave, not a crossing",
    "wrong_ball": "committed reading: striking a ball other than the cue ball is a foul (1.4.2); the chain is "
    "judged from the first contact of the struck ball",
    "cue_point": "committed reading: a legally potted cue ball counts one point; the object ball taken off in "
    "exchange goes to the shelf and is not a second point",
    "dynamic_foul_point": "committed reading: in Dynamic a foul gives the opponent +1 at once (4.6), whichever "
    "option of 4.7 he takes",
    "dynamic_premium": "committed reading: on a premium shot (4.5.2) an object ball potted with the cue ball "
    "counts, the cue ball does not, no foul, the turn passes",
    "russian_7070": "committed reading: at 70-70 the ball that made it counts and is spotted on the rear spot; "
    "the next player is decided by a lag (5.5.7)",
    "russian_penalty_win": "committed reading: a penalty that takes the opponent to 71 or more wins the frame",
    "nomination_other_ball": "committed reading: a ball potted without the nominated one (or the nominated ball "
    "in another pocket) is spotted, no foul, and the turn passes",
    "nominate_during_russian71": "committed reading: a nomination made during the stroke does not replace the "
    "standing one (5.5.2)",
    "nominate_during_classic71": "committed reading: a nomination made during or after the stroke does not "
    "count; the ball is spotted (001)",
    "missing_nomination": "committed reading: a missing nomination is not a foul",
    "clean_as_nominated": "committed reading: clean designation: the nominated ball in the nominated pocket "
    "counts as falling as nominated unless the referee says otherwise; every other ball potted is spotted",
    "classic_last_ball": "engine reading: Classic 71 pot values are those of 5.x (RULES.md: 'as 5.x'), the last "
    "ball +10 (5.5.1) included: the values total 140, which 71 to win and the 70-70 draw of 001 presuppose",
    "classic_general": "committed reading: the general rules 1.x apply to Classic 71",
    "classic_floor": "committed reading: a penalty against a player at 0 leaves him at 0 and lowers the "
    "opponent's target (001); a player with fewer points than the penalty pays what he has, the rest lowers "
    "the target (engine reading of the same clause)",
    "hand_first_contact": "committed reading: from hand, the first contact must be with a ball outside the house "
    "(a ball on the house line is outside) (1.21.2, 001 (zh))",
    "placed_outside_house": "committed reading: a cue ball placed outside the house with no warning stands "
    "(1.11.3)",
    "disturbed_117": "committed reading: ball_disturbed during the striker's shot is 1.17 (the referee "
    "overrides it to 1.27, no foul, when an outsider caused it)",
    "break_penalty_first": "committed reading: after an illegal break in the 8-point games the penalty ball is "
    "taken first, then one of the four choices of 1.12.2; a re-rack is an incomplete pyramid",
    "one_penalty": "committed reading: several failed rules are all listed and one penalty is charged (1.29.2)",
    "no_contact": "committed reading: with no contact at all, 1.5.3 is cited",
    "after_last_ball": "rule 1.22.3 note: a violation after the shot that ended the frame is not penalised and "
    "the result stands",
}

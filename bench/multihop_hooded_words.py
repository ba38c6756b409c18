"""How the hooded corpus's pages word each of its 17 relations (#28), several ways each.

`fwd` templates sit on the subject's page, `back` ones on the other end's; `*_kv` are key-value
lines for infoboxes and catalogue entries; `FIRST` holds the first-person answers of an interview
transcript (a living person's page). Placeholders: {S} the page's own entity at a sentence's start
(its name, surname, a pronoun or its kind), {N} the same mid-sentence, {O} as an object, {P}/{P_cap}
its possessive, {t} the other end's title, {y} the link's year, {no} {street} a street address.
`CUES` is what the contract test looks for in a span stating a link (one regex per relation);
listings match none of them and every note matches two or more.
"""

from __future__ import annotations

REL: dict[str, dict[str, list[str]]] = {
    "born": {
        "fwd": [
            "{S} was born at {t} in {y}.",
            "{S} was a native of {t}.",
            "{P_cap} birth, in {y}, was registered at {t}.",
        ],
        "back": [
            "{t} was born in {O} in {y}.",
            "{S} is the birthplace of {t}.",
            "The parish books of {O} record the birth of {t} in {y}.",
        ],
        "fwd_kv": ["Born: {t} ({y})", "Place of birth: {t}"],
        "back_kv": ["Born here: {t} ({y})", "Natives: {t}"],
    },
    "in": {
        "fwd": ["{S} has its seat in {t}.", "{S} occupies premises in {t}.", "Since {y} {N} has stood in {t}."],
        "back": ["{t} has its seat here.", "{t} occupies premises in {O}.", "{t} has stood in {O} since {y}."],
        "fwd_kv": ["Seat: {t}", "Premises: {no} {street}, {t}"],
        "back_kv": ["Seat of: {t}", "Premises here: {t}"],
    },
    "region": {
        "fwd": ["{S} lies within {t}.", "{S} is a parish of {t}.", "For administration {N} falls under {t}."],
        "back": ["{t} lies within {P} bounds.", "{t} is a parish of {O}.", "{t} falls under {O} for administration."],
        "fwd_kv": ["Region: {t}", "County: {t}"],
        "back_kv": ["Parishes: {t}", "Towns: {t}"],
    },
    "founded": {
        "fwd": [
            "{S} was established by {t} in {y}.",
            "{t} set up {O} in {y}.",
            "{S} began in {y} as the venture of {t}.",
        ],
        "back": ["{S} established {t} in {y}.", "In {y} {N} set up {t}.", "{t} began in {y} as {P} venture."],
        "fwd_kv": ["Established by: {t}", "Established: {y}, by {t}"],
        "back_kv": ["Ventures: {t} ({y})", "Established: {t}"],
    },
    "studied": {
        "fwd": [
            "{S} read natural philosophy at {t}.",
            "{S} took a degree at {t} in {y}.",
            "{S} was educated at {t}.",
        ],
        "back": [
            "{t} read natural philosophy at {O}.",
            "Among the graduates of {O} is {t} ({y}).",
            "{t} was educated at {O}.",
        ],
        "fwd_kv": ["Education: {t}", "Alma mater: {t} ({y})"],
        "back_kv": ["Graduates: {t} ({y})", "Alumni: {t}"],
    },
    "mentor": {
        "fwd": [
            "{S} served as assistant to {t}.",
            "{S} learned observing under {t}.",
            "{P_cap} first instruction came from {t}, in {y}.",
        ],
        "back": ["{S} took on {t} as an assistant.", "{t} learned observing under {O}.", "{S} instructed {t} in {y}."],
        "fwd_kv": ["Mentor: {t}", "Assistant to: {t}"],
        "back_kv": ["Assistants: {t}", "Mentor of: {t}"],
    },
    "discovered": {
        "fwd": [
            "{S} was discovered by {t} in {y}.",
            "{S} was first picked up by {t} in {y}.",
            "The credit for finding {O} goes to {t}.",
        ],
        "back": [
            "{S} discovered {t} in {y}.",
            "{S} was the first to pick up {t}, in {y}.",
            "The credit for finding {t} goes to {O}.",
        ],
        "fwd_kv": ["Discoverer: {t}", "Discovered: {y}, by {t}"],
        "back_kv": ["Discoveries: {t} ({y})", "Comets found: {t}"],
    },
    "sighted": {
        "fwd": [
            "{S} was first seen from {t}.",
            "The first observation of {O} was made at {t} in {y}.",
            "{S} was sighted through the lenses of {t}.",
        ],
        "back": [
            "{t} was first seen from {O} in {y}.",
            "{S} made the first observation of {t}.",
            "{t} was sighted through {P} lenses in {y}.",
        ],
        "fwd_kv": ["First seen from: {t}", "Observed at: {t} ({y})"],
        "back_kv": ["First seen here: {t}", "Sightings: {t} ({y})"],
    },
    "built": {
        "fwd": [
            "{S} was made in the workshop of {t} in {y}.",
            "{t} built {O} in {y}.",
            "{S} left the benches of {t} in {y}.",
        ],
        "back": ["{S} built {t} in {y}.", "{t} was made in {P} workshop.", "{t} left {P} benches in {y}."],
        "fwd_kv": ["Made by: {t}", "Workshop: {t} ({y})"],
        "back_kv": ["Instruments: {t} ({y})", "Products: {t}"],
    },
    "housed": {
        "fwd": ["{S} is housed at {t}.", "{S} has been mounted at {t} since {y}.", "{S} stands under the dome of {t}."],
        "back": ["{t} is housed at {O}.", "{S} has had {t} mounted since {y}.", "Under {P} dome stands {t}."],
        "fwd_kv": ["Housed at: {t}", "Mounted at: {t} (since {y})"],
        "back_kv": ["Telescopes: {t}", "Instruments housed: {t}"],
    },
    "designed": {
        "fwd": [
            "{S} was designed by {t} in {y}.",
            "The optics of {O} were figured by {t}.",
            "{t} drew up the plans for {O}.",
        ],
        "back": ["{S} designed {t} in {y}.", "{S} figured the optics of {t}.", "{S} drew up the plans for {t}."],
        "fwd_kv": ["Designer: {t}", "Optics: {t}"],
        "back_kv": ["Designs: {t} ({y})", "Instruments designed: {t}"],
    },
    "cast": {
        "fwd": ["{S} was cast at {t} in {y}.", "{t} poured {O} in {y}.", "{S} came from the furnaces of {t}."],
        "back": ["{t} was cast at {O} in {y}.", "{S} poured {t} in {y}.", "{t} came from {P} furnaces."],
        "fwd_kv": ["Cast by: {t}", "Foundry: {t} ({y})"],
        "back_kv": ["Bells cast: {t} ({y})", "Castings: {t}"],
    },
    "donated": {
        "fwd": ["{S} was the gift of {t}.", "{S} was paid for by {t} in {y}.", "{t} gave {O} to the parish in {y}."],
        "back": ["{S} gave {t} to the parish in {y}.", "{t} was {P} gift.", "{S} paid for {t} in {y}."],
        "fwd_kv": ["Donor: {t}", "Given by: {t} ({y})"],
        "back_kv": ["Gifts: {t} ({y})", "Benefactions: {t}"],
    },
    "produced": {
        "fwd": ["{S} is a wine of {t}.", "{S} was produced at {t} in {y}.", "{S} comes from the vineyards of {t}."],
        "back": ["{t} is one of {P} wines.", "{t} was produced at {O} in {y}.", "{t} comes from {P} vineyards."],
        "fwd_kv": ["Estate: {t}", "Producer: {t}"],
        "back_kv": ["Wines: {t} ({y})", "Bottlings: {t}"],
    },
    "barrels": {
        "fwd": [
            "{S} was aged in casks from {t}.",
            "The barrels for {O} were coopered by {t}.",
            "{S} matured in oak supplied by {t}.",
        ],
        "back": ["{S} coopered the casks for {t}.", "{t} was aged in {P} barrels.", "{S} supplied the oak for {t}."],
        "fwd_kv": ["Casks: {t}", "Cooper: {t}"],
        "back_kv": ["Casks supplied for: {t}", "Barrels for: {t}"],
    },
    "vinified": {
        "fwd": [
            "{S} was made by the winemaker {t} in {y}.",
            "{t} blended {O} in {y}.",
            "The cellar work on {O} was done by {t}.",
        ],
        "back": ["{S} vinified {t} in {y}.", "{S} blended {t} in {y}.", "{t} owes its blend to {O}."],
        "fwd_kv": ["Winemaker: {t}", "Blended by: {t}"],
        "back_kv": ["Vintages: {t} ({y})", "Blends: {t}"],
    },
    "director": {
        "fwd": [
            "{S} is directed by {t}.",
            "Since {y} {t} has been director of {O}.",
            "The present director of {O} is {t}.",
        ],
        "back": ["{S} is director of {t}.", "Since {y} {N} has directed {t}.", "{S} has headed {t} since {y}."],
        "fwd_kv": ["Director: {t}", "Directed by: {t} (since {y})"],
        "back_kv": ["Directs: {t}", "Director of: {t} (since {y})"],
    },
}

# an interview's answers: how a living person tells a link of their own page ({t} the other end)
FIRST: dict[tuple[str, str], tuple[str, str]] = {  # (relation, way) -> (the interviewer's line, the answer)
    ("born", "fwd"): ("Where did it all begin?", "I was born at {t}, in {y}."),
    ("founded", "back"): ("And the business side?", "I set up {t} in {y}."),
    ("studied", "fwd"): ("What about your schooling?", "I was educated at {t}."),
    ("mentor", "fwd"): ("Who showed you the ropes?", "I served as assistant to {t}."),
    ("mentor", "back"): ("Do you teach?", "I took on {t} as an assistant."),
    ("discovered", "back"): ("Your best night at the eyepiece?", "I was the first to pick up {t}, in {y}."),
    ("designed", "back"): ("Which piece are you proudest of?", "I drew up the plans for {t}."),
    ("donated", "back"): ("You are known for generosity.", "I paid for {t} in {y}."),
    ("vinified", "back"): ("Which year stands out?", "I blended {t} in {y}."),
    ("director", "back"): ("What occupies you now?", "I have directed {t} since {y}."),
}

CUES: dict[str, str] = {
    "born": r"\bborn\b|\bbirth|\bnatives?\b",
    "in": r"\bseat\b|\bpremises\b|\bstood in\b",
    "region": r"\blies within\b|\bparish of\b|\bfalls under\b|\bregion:|\bcounty:|\bparishes:|\btowns:",
    "founded": r"\bestablish|\bset up\b|\bventure",
    "studied": r"\bnatural philosophy\b|\bdegree\b|\beducat|\bgraduates\b|\balma mater\b|\balumni\b",
    "mentor": r"\bassistant|\bobserving under\b|\binstruct|\bmentor",
    "discovered": r"\bdiscover|\bpick(ed)? up\b|\bfinding\b|\bcomets found\b",
    "sighted": r"\bfirst seen\b|\bobservation\b|\bsighted\b|\bsightings\b|\bobserved at\b",
    "built": r"\bbuilt\b|\bworkshop\b|\bbenches\b|\bmade by:|\binstruments:|\bproducts:",
    "housed": r"\bhoused\b|\bmounted\b|\bdome\b|\btelescopes:",
    "designed": r"\bdesign|\bfigured\b|\boptics\b|\bplans for\b",
    "cast": r"\bcast\b|\bpoured\b|\bfurnaces\b|\bfoundry:|\bcastings\b",
    "donated": r"\bgift|\bgave\b|\bpaid for\b|\bdonor\b|\bgiven by\b|\bbenefactions\b",
    "produced": r"\bwine of\b|\bwines\b|\bproduced\b|\bvineyards\b|\bestate:|\bproducer\b|\bbottlings\b",
    "barrels": r"\bcasks?\b|\bbarrels?\b|\bcoopered\b|\bcooper:|\boak\b",
    "vinified": r"\bwinemaker\b|\bblend|\bcellar work\b|\bvinified\b|\bvintages:",
    "director": r"\bdirect|\bheaded\b",
}

"""How the shrouded corpus (#28) words each of its 16 relations, in an encyclopaedia's voice: on the
subject's page ("fwd"), on the other end's ("back"), as a "Key: value" line ("kv", for infoboxes,
register tables and timelines) or as one sentence listing several subjects ("group", on the
other end's page). The contract test checks every walked link against `CUES`, so a page states a
link in a wording of its relation and never by merely listing two names.

Placeholders: {S} the page's entity at a sentence's start (name, surname or pronoun), {N} the same
mid-sentence, {n} its pronoun, {O} its object form, {P} its possessive ({P_cap} capitalised), {t}
the other end's full name; on the other end's page {T}/{TO} that page's entity and {s} the
subject's full name, {L} a list of subjects; {y} the link's year. `LEAD` opens a sentence that goes
on to state a second relation (the subject named again after the comma).
"""

from __future__ import annotations

Wording = dict[str, list[str]]

REL: dict[str, Wording] = {
    "born": {
        "fwd": [
            "{S} was born in {t} in {y}.",
            "{S} grew up in {t}, where {n} was born in {y}.",
            "{S} was born and schooled in {t}.",
            "{P_cap} birthplace was {t}, where {n} kept a house for many years.",
            "{S}, a native of {t}, left it young.",
        ],
        "kv": ["Born: {y}, {t}", "Place of birth: {t}"],
        "back": ["{s} was born in {TO} in {y}.", "{T} is the birthplace of {s}.", "{s} was a native of {TO}."],
        "group": ["Natives of {T} include {L}.", "People born in {T} include {L}."],
    },
    "in": {
        "fwd": [
            "{S} is based in {t}.",
            "{S} has its premises in {t}.",
            "{P_cap} headquarters are in {t}.",
            "{S}, which is situated in {t}, dates from {y}.",
            "{S} has always been located in {t}.",
        ],
        "kv": ["Location: {t}", "Seat: {t}", "Headquarters: {t}"],
        "back": ["{s} is based in {TO}.", "{T} is home to {s}.", "{s} has its premises in {TO}."],
        "group": ["{T} is home to {L}.", "Organisations based in {T} include {L}."],
    },
    "region": {
        "fwd": ["{S} lies in {t}.", "{S} is one of the towns of {t}.", "{S} belongs to {t}."],
        "kv": ["Region: {t}"],
        "back": ["{s} lies within {TO}.", "The towns of {TO} include {s}."],
        "group": ["The towns of {T} include {L}.", "{T} takes in the towns of {L}."],
    },
    "range": {
        "fwd": ["{S} is a summit of {t}.", "{S} rises in {t}.", "{S} is counted among the peaks of {t}."],
        "kv": ["Range: {t}", "Parent range: {t}"],
        "back": ["{s} is a summit of {TO}.", "Among the peaks of {TO} is {s}."],
        "group": ["The summits of {T} include {L}.", "{T} takes in the peaks {L}."],
    },
    "first_ascent": {
        "fwd": [
            "{S} was first climbed in {y} by a party led by {t}.",
            "The first ascent of {O} was made in {y}, with {t} as guide.",
            "{t} guided the first party to the top of {O} in {y}.",
        ],
        "kv": ["First ascent: {y}, guided by {t}"],
        "back": [
            "{T} led the first ascent of {s} in {y}.",
            "{T} guided the first party up {s}, in {y}.",
            "In {y} the first ascent of {s} was led by {TO}.",
        ],
        "group": ["{T} led the first ascents of {L}."],
    },
    "surveyed": {
        "fwd": [
            "{S} was surveyed by {t} in {y}.",
            "{P_cap} height was first measured by {t} in {y}.",
            "{t} fixed the height of {O} by triangulation in {y}.",
        ],
        "kv": ["Surveyed: {y}, by {t}"],
        "back": ["{T} surveyed {s} in {y}.", "{T} measured the height of {s} in {y}."],
        "group": ["{T} surveyed {L}.", "Summits measured by {T} include {L}."],
    },
    "employer": {
        "fwd": [
            "{S} worked for the map publisher {t} from {y}.",
            "{S} joined {t} as a draughtsman in {y}.",
            "In {y} {N} was taken on by {t}, for whom {n} drew sheets for decades.",
        ],
        "kv": ["Employer: {t}"],
        "back": ["{s} joined {TO} in {y}.", "{T} employed {s} from {y}."],
        "group": ["The staff of {T} have included {L}.", "Surveyors employed by {T} included {L}."],
    },
    "club": {
        "fwd": ["{S} was a member of {t}.", "{S} joined {t} in {y}.", "{S} belonged to {t}, which elected {O} in {y}."],
        "kv": ["Club: {t}"],
        "back": ["{s} was a member of {TO}.", "{T} elected {s} a member in {y}."],
        "group": ["Members of {T} have included {L}."],
    },
    "hut_peak": {
        "fwd": ["{S} stands below {t}.", "{S} sits on the flank of {t}.", "{S} is the usual base for climbs of {t}."],
        "kv": ["Mountain: {t}"],
        "back": ["{s} stands below {TO}.", "Climbers bound for {TO} stay at {s}."],
        "group": ["Below {T} stand {L}."],
    },
    "hut_club": {
        "fwd": ["{S} is run by {t}.", "{S} is owned by {t}, which built it in {y}.", "{t} has kept {O} since {y}."],
        "kv": ["Owner: {t}"],
        "back": ["{T} runs {s}.", "{T} built {s} in {y} and still owns it."],
        "group": ["{T} runs {L}."],
    },
    "founded": {
        "fwd": [
            "{S} was founded by {t} in {y}.",
            "{t} set up {O} in {y}.",
            "{S} was established in {y} by {t}.",
            "{S} owes its existence to {t}, who started it in {y}.",
        ],
        "kv": ["Founder: {t}", "Founded: {y}, by {t}"],
        "back": ["{T} founded {s} in {y}.", "{T} set up {s} in {y}.", "{s} was established by {TO} in {y}."],
        "group": ["{T} founded {L}."],
    },
    "woven": {
        "fwd": ["{S} is woven at {t}.", "{S} comes off the looms of {t}.", "{t} has made {O} since {y}."],
        "kv": ["Mill: {t}", "Woven at: {t}"],
        "back": ["{T} weaves {s}.", "{s} is woven at {TO}.", "The looms of {TO} have turned out {s} since {y}."],
        "group": ["{T} weaves {L}.", "Cloths woven at {T} include {L}."],
    },
    "trained": {
        "fwd": [
            "{S} trained at {t}.",
            "{S} studied at {t}, graduating in {y}.",
            "{S} graduated from {t} in {y}.",
            "{S} learned pattern cutting at {t}.",
        ],
        "kv": ["Education: {t}", "Trained: {t}, {y}"],
        "back": ["{s} studied at {TO}.", "{T} trained {s}, who graduated in {y}."],
        "group": ["Graduates of {T} include {L}."],
    },
    "house": {
        "fwd": [
            "{S} designed for {t} from {y}.",
            "{S} was appointed creative director of {t} in {y}.",
            "{S} joined the fashion house {t} in {y}.",
        ],
        "kv": ["Fashion house: {t}"],
        "back": ["{T} appointed {s} creative director in {y}.", "{s} designed for {TO} from {y}."],
        "group": ["Designers at {T} include {L}."],
    },
    "designed": {
        "fwd": ["{S} was designed by {t}.", "{S} is the work of {t}.", "{t} showed {O} in {y}."],
        "kv": ["Designer: {t}"],
        "back": ["{T} designed {s}.", "{T} showed {s} in {y}.", "{s} was designed by {TO}."],
        "group": ["{T} designed {L}."],
    },
    "fabric": {
        "fwd": ["{S} is cut from {t}.", "{S} uses {t} throughout.", "{P_cap} coats are tailored from {t}."],
        "kv": ["Cloth: {t}", "Fabric: {t}"],
        "back": ["{s} is cut from {TO}.", "{s} is made up in {TO}."],
        "group": ["{T} is the cloth of {L}."],
    },
}

# a sentence's opening that states one relation before its subject states another
LEAD: dict[str, list[str]] = {
    "born": ["Born in {t} in {y}, ", "A native of {t}, "],
    "in": ["Based in {t}, ", "Situated in {t}, "],
    "range": ["A summit of {t}, "],
    "trained": ["Trained at {t}, "],
    "woven": ["Woven at {t}, "],
}

CUES: dict[str, str] = {
    "born": r"born|native|birthplace|place of birth",
    "in": r"based|home to|premises|headquarters|situated|located|location|seat",
    "region": r"lies|town in|towns of|belongs|region|takes in",
    "range": r"summit|rises in|peaks|range",
    "first_ascent": r"first ascent|first climbed|first party|guided",
    "surveyed": r"survey|measured|height",
    "employer": r"work|joined|employ|staff|taken on",
    "club": r"member|joined|belong|elected|club",
    "hut_peak": r"below|flank|base for|bound for|mountain",
    "hut_club": r"run|own|kept|built",
    "founded": r"found|set up|establish|existence",
    "woven": r"wove|weave|loom|made|mill",
    "trained": r"train|studied|graduat|learned|education",
    "house": r"design|creative director|fashion house",
    "designed": r"design|work of|showed",
    "fabric": r"cut from|uses|cloth|tailored|fabric|made up in",
}

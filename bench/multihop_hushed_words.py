"""How the hushed corpus (#28) words each of its 16 relations: on the subject's page ("fwd") or the
other end's ("back"), in the third person, the first person or as a key-value line. The contract
test checks every walked link against `CUES`, so a page states a link in a wording of its relation
and never by merely listing two names.

Placeholders: {S} the subject at a sentence's start (its name, surname or pronoun), {N} the same
mid-sentence, {n} its pronoun, {O} its object form, {P} its possessive ({P_cap} capitalised), {t} the
other end's full name (fwd); on the other end's page
{T}/{TO}/{TP} stand for that page's entity and {s} for the subject's full name (back); {y} a year.
"""

from __future__ import annotations

Wording = dict[str, list[str]]  # "fwd", "fwd_first", "fwd_kv", "back", "back_first" -> templates

REL: dict[str, Wording] = {
    "born": {
        "fwd": [
            "{S} was born in {t} in {y}.",
            "A native of {t}, {N} kept the accent all {P} life.",
            "{S} grew up in {t}, where {n} was born in {y}.",
            "{S} came into the world at {t}.",
        ],
        "fwd_first": ["I was born in {t}.", "I grew up in {t}, where I was born in {y}."],
        "fwd_kv": ["Born: {t}, {y}", "Birthplace: {t}", "b. {t}, {y}"],
        "back": [
            "{s} was born in {TO} in {y}.",
            "{T} is the birthplace of {s}.",
            "{s}, born here in {y}, left young.",
            "Among the children born in {TO}: {s}.",
        ],
    },
    "in": {
        "fwd": [
            "{S} is based in {t}.",
            "{S} has its headquarters in {t}.",
            "{S} stands on the edge of {t}.",
            "Its home has always been {t}.",
            "{S}, headquartered in {t}, opened in {y}.",
        ],
        "fwd_first": ["We are based in {t}.", "Our home is {t}, and has been since {y}."],
        "fwd_kv": ["Location: {t}", "Headquarters: {t}", "Address: Station Road, {t}"],
        "back": [
            "{s} is based in {TO}.",
            "{T} is home to {s}.",
            "{s} has its headquarters here, on the ring road.",
            "{T} hosts {s}, which arrived in {y}.",
        ],
    },
    "region": {
        "fwd": ["{S} lies in {t}.", "{S} is a market town in {t}.", "{S} belongs to {t}."],
        "fwd_kv": ["Region: {t}", "Part of: {t}"],
        "back": ["{s} lies in {TO}.", "{T} takes in the town of {s}.", "{s} is one of the towns of {TO}."],
    },
    "maker": {
        "fwd": [
            "{S} was built by {t}.",
            "{S} is a {t} design.",
            "{t} built {O} from {y}.",
            "{S} rolled out of the {t} works in {y}.",
        ],
        "fwd_kv": ["Manufacturer: {t}", "Built by: {t}"],
        "back": [
            "{T} built the {s}.",
            "The {s}, first rolled out in {y}, is one of {TP} designs.",
            "The {s} came out of {TP} workshops.",
        ],
        "back_first": ["We built the {s}.", "Our works turned out the {s} from {y}."],
    },
    "first_flight": {
        "fwd": [
            "{S} first flew in {y} with {t} at the controls.",
            "{t} took {O} up on its maiden flight.",
            "{S} was first flown by {t}.",
        ],
        "fwd_kv": ["Maiden flight: {y}, {t}", "First flown by: {t}"],
        "back": [
            "{T} made the first flight of the {s} in {y}.",
            "{T} flew the {s} on its maiden flight.",
            "The {s} was first flown by {TO}.",
        ],
        "back_first": ["I took the {s} up for its first flight.", "I flew the {s} on its maiden flight in {y}."],
    },
    "chief_pilot": {
        "fwd": [
            "{S} is chief test pilot at {t}.",
            "{S} became chief test pilot of {t} in {y}.",
            "{t} made {O} its chief test pilot.",
        ],
        "fwd_first": ["I test-fly for {t} as its chief test pilot."],
        "fwd_kv": ["Chief test pilot, {t}", "Position: chief test pilot, {t}"],
        "back": ["{s} is the chief test pilot of {TO}.", "{T} appointed {s} chief test pilot in {y}."],
        "back_first": ["Our chief test pilot is {s}."],
    },
    "flying_school": {
        "fwd": [
            "{S} learned to fly at {t}.",
            "{S} trained at {t} in {y}.",
            "{S} earned {P} wings at {t}.",
        ],
        "fwd_first": ["I learned to fly at {t}.", "I earned my wings at {t} in {y}."],
        "fwd_kv": ["Trained: {t}", "Wings: {t}, {y}"],
        "back": ["{s} learned to fly at {TO}.", "{T} taught {s} to fly.", "Alumni of {TO} include {s}."],
        "back_first": ["We taught {s} to fly.", "{s} earned wings with us in {y}."],
    },
    "hub": {
        "fwd": [
            "{S} has its hub at {t}.",
            "{S} runs its network out of {t}.",
            "{S} keeps its main base at {t}.",
        ],
        "fwd_first": ["All our flights start and end at {t}, our hub."],
        "fwd_kv": ["Hub: {t}", "Main base: {t}"],
        "back": ["{T} is the hub of {s}.", "{s} runs its network out of {TO}.", "{s} keeps its main base at {TO}."],
    },
    "fleet": {
        "fwd": [
            "{S} flies the {t}.",
            "The backbone of {P} fleet is the {t}.",
            "{S} has operated the {t} since {y}.",
        ],
        "fwd_first": ["We fly the {t}.", "Our fleet is built around the {t}."],
        "fwd_kv": ["Fleet: {t}", "Main type: {t}"],
        "back": ["{s} flies the type.", "{s} has operated {TO} since {y}.", "Operators include {s}."],
    },
    "founded": {
        "fwd": [
            "{S} was founded by {t} in {y}.",
            "{t} founded {O} in {y}.",
            "{S} owes its existence to {t}, who set it up in {y}.",
        ],
        "fwd_first": ["{t} founded us in {y}."],
        "fwd_kv": ["Founder: {t}", "Founded: {y}, by {t}"],
        "back": ["{T} founded {s} in {y}.", "{T} set up {s} in {y}.", "In {y} {TO} established {s}."],
        "back_first": ["I founded {s} in {y}.", "I set up {s} with borrowed money."],
    },
    "works": {
        "fwd": [
            "{S} operates at {t}.",
            "{S} is a consultant surgeon at {t}.",
            "{S} has held a surgical post at {t} since {y}.",
        ],
        "fwd_first": ["I operate at {t}.", "I have been a consultant at {t} since {y}."],
        "fwd_kv": ["Post: consultant surgeon, {t}", "Surgeon at: {t}"],
        "back": [
            "{s} operates at {TO}.",
            "The surgical staff of {TO} include {s}.",
            "{s} is a consultant surgeon here.",
        ],
        "back_first": ["Our consultant surgeons include {s}.", "{s} joined our surgical staff in {y}."],
    },
    "studied": {
        "fwd": [
            "{S} studied medicine at {t}.",
            "{S} qualified at {t} in {y}.",
            "A graduate of {t}, {N} qualified in {y}.",
        ],
        "fwd_first": ["I read medicine at {t}.", "I qualified at {t} in {y}."],
        "fwd_kv": ["Qualified: {t}, {y}", "Medical school: {t}"],
        "back": ["{s} studied medicine at {TO}.", "{T} graduated {s} in {y}.", "{s} qualified here in {y}."],
        "back_first": ["{s} qualified with us in {y}."],
    },
    "mentor": {
        "fwd": [
            "{S} trained under {t}.",
            "{S} was registrar to {t}.",
            "{t} taught {O} to operate.",
        ],
        "fwd_first": ["I was registrar to {t}.", "I trained under {t} for six years."],
        "fwd_kv": ["Trained under: {t}", "Mentor: {t}"],
        "back": ["{T} trained {s}.", "{T} took on {s} as a registrar in {y}.", "{T} taught {s} to operate."],
        "back_first": ["I trained {s}.", "I took on {s} as my registrar in {y}."],
    },
    "directs": {
        "fwd": ["{S} is directed by {t}.", "{t} directs {O}.", "{S} has been led by {t} since {y}."],
        "fwd_first": ["Our director is {t}."],
        "fwd_kv": ["Director: {t}"],
        "back": ["{T} directs {s}.", "{T} has headed {s} since {y}."],
        "back_first": ["I direct {s}.", "I have led {s} since {y}."],
    },
    "partner": {
        "fwd": [
            "{S} runs its research with {t}.",
            "{P_cap} research partner is {t}.",
            "{S} sends its trials to {t}.",
        ],
        "fwd_first": ["We run our research with {t}."],
        "fwd_kv": ["Research partner: {t}"],
        "back": ["{T} works with {s} on its research.", "{s} sends its trials to {TO}."],
        "back_first": ["We run the research of {s}."],
    },
    "air_ambulance": {
        "fwd": [
            "{P_cap} air ambulance is flown by {t}.",
            "{t} flies the air ambulance for {O}.",
            "{S} holds an air-ambulance contract with {t}.",
        ],
        "fwd_first": ["Our air ambulance is flown by {t}."],
        "fwd_kv": ["Air ambulance: {t}"],
        "back": ["{T} flies the air ambulance for {s}.", "{T} holds the air-ambulance contract of {s}."],
        "back_first": ["We fly the air ambulance for {s}."],
    },
}

# the words a page states a relation with (every wording above has one): the contract test's check
CUES: dict[str, str] = {
    "born": r"born|native|birthplace|b\. |came into the world",
    "in": r"based|headquarter|edge of|home|address|location|hosts",
    "region": r"lies in|town in|belongs|region|part of|towns of|takes in",
    "maker": r"built|design|works|manufacturer",
    "first_flight": r"first fl|maiden",
    "chief_pilot": r"chief test pilot",
    "flying_school": r"learned to fly|trained|wings|alumni|taught .* to fly",
    "hub": r"hub|network out of|main base",
    "fleet": r"flies|fleet|operated|operators|main type|fly the",
    "founded": r"found|set (it )?up|established|existence",
    "works": r"operate|consultant|surgical|surgeon at",
    "studied": r"medicine|qualified|graduate|medical school",
    "mentor": r"trained|registrar|taught .* to operate|mentor",
    "directs": r"direct|headed|led by|have led",
    "partner": r"research|trials",
    "air_ambulance": r"air ambulance|air-ambulance",
}

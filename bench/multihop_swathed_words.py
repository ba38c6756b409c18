"""How the swathed corpus's pages word each of its 18 relations (#28), several ways each.

`fwd` templates sit on the subject's page, `back` ones on the other end's; `*_kv` are key-value
lines for infoboxes, tables and registers. Placeholders: {S} the page's own entity at a sentence's
start (its name, surname, a pronoun or its kind), {N} the same mid-sentence, {O} as an object,
{P}/{P_cap} its possessive, {t} the other end's title, {y} the link's year, {no} {street} a street
address. Some statements are passive, some put the relation in a subordinate clause, some on the
object's page only.
`CUES` is what the contract test looks for in a sentence stating a link (one regex per relation).
"""

from __future__ import annotations

REL: dict[str, dict[str, list[str]]] = {
    "born": {
        "fwd": [
            "{S} was born in {t} in {y}.",
            "{P_cap} birthplace was {t}.",
            "{S} came into the world at {t} in {y}.",
        ],
        "back": [
            "{t} was born here in {y}.",
            "{S} is the birthplace of {t}.",
            "Among the children of {O} is {t}, born in {y}.",
        ],
        "fwd_kv": ["Born: {t}, {y}", "Birthplace: {t}"],
        "back_kv": ["Natives: {t} (b. {y})", "Notable births: {t}"],
    },
    "in": {
        "fwd": ["{S} stands in {t}.", "{S} has been based in {t} since {y}.", "{P_cap} premises are in {t}."],
        "back": ["{t} is based here.", "{S} is home to {t}.", "{t} has had its premises in {O} since {y}."],
        "fwd_kv": ["Location: {t}", "Address: {no} {street}, {t}"],
        "back_kv": ["Institutions: {t}", "Located here: {t}"],
    },
    "province": {
        "fwd": ["{S} lies in {t}.", "{S} is administered as part of {t}.", "{S} belongs to {t}."],
        "back": ["{t} lies within {P} borders.", "{t} is administered as part of {O}.", "{S} takes in {t}."],
        "fwd_kv": ["Province: {t}", "Administrative area: {t}"],
        "back_kv": ["Settlements: {t}", "Includes: {t}"],
    },
    "founded": {
        "fwd": [
            "{S} was founded by {t} in {y}.",
            "{t} established {O} in {y}.",
            "{S} owes its existence to {t}, who set it up in {y}.",
        ],
        "back": ["{S} founded {t} in {y}.", "In {y} {N} established {t}.", "It was {N} who set up {t}, in {y}."],
        "fwd_kv": ["Founder: {t}", "Founded: {y}, by {t}"],
        "back_kv": ["Founded: {t} ({y})", "Establishments: {t}"],
    },
    "composed": {
        "fwd": [
            "{S} is an opera by {t}, finished in {y}.",
            "{S} was composed by {t} in {y}.",
            "{t} wrote the score of {O} in {y}.",
        ],
        "back": [
            "{S} composed {t} in {y}.",
            "{t}, an opera in three acts, is {P} best-known score.",
            "Among {P} works is the opera {t} ({y}).",
        ],
        "fwd_kv": ["Composer: {t}", "Music: {t} ({y})"],
        "back_kv": ["Operas: {t} ({y})", "Stage works: {t}"],
    },
    "premiered": {
        "fwd": [
            "{S} was first performed at {t} in {y}.",
            "{S} opened at {t} in {y}.",
            "The premiere, in {y}, was given at {t}.",
        ],
        "back": [
            "{t} had its first performance at {O} in {y}.",
            "{S} staged the premiere of {t} in {y}.",
            "The world premiere of {t} was given at {O} in {y}.",
        ],
        "fwd_kv": ["Premiere: {t}, {y}", "First performance: {t} ({y})"],
        "back_kv": ["Premieres: {t} ({y})", "World premieres given: {t}"],
    },
    "label": {
        "fwd": [
            "{S} was issued by {t} in {y}.",
            "{t} released {O} in {y}.",
            "{S} appeared in the {t} catalogue in {y}.",
        ],
        "back": ["{S} issued {t} in {y}.", "{t} was released by {O} in {y}.", "Its catalogue of {y} added {t}."],
        "fwd_kv": ["Label: {t}", "Released: {y}, {t}"],
        "back_kv": ["Catalogue: {t} ({y})", "Releases: {t}"],
    },
    "soloist": {
        "fwd": [
            "{S} features {t} in the title role.",
            "{t} sings the lead on {O}.",
            "The principal soloist heard on {O} is {t}.",
        ],
        "back": [
            "{S} sang the lead on {t} ({y}).",
            "{S} can be heard as soloist on {t}.",
            "{t} features {O} in the title role.",
        ],
        "fwd_kv": ["Soloist: {t}", "Lead voice: {t}"],
        "back_kv": ["Recordings: {t} ({y})", "Heard on: {t}"],
    },
    "of_opera": {
        "fwd": [
            "{S} is a complete recording of {t}.",
            "{S} captures a performance of {t}.",
            "{S} presents the whole of {t}.",
        ],
        "back": [
            "{t} is a complete recording of {O}.",
            "{S} was recorded complete as {t} in {y}.",
            "A performance of {O} survives as {t}.",
        ],
        "fwd_kv": ["Work recorded: {t}", "Programme: {t}"],
        "back_kv": ["Recorded as: {t} ({y})", "Complete recordings: {t}"],
    },
    "studied": {
        "fwd": ["{S} studied at {t}.", "{S} graduated from {t} in {y}.", "{S} trained at {t}, leaving in {y}."],
        "back": ["{t} studied at {O}.", "{t} graduated from {O} in {y}.", "Among {P} students was {t}."],
        "fwd_kv": ["Education: {t}", "Alma mater: {t} ({y})"],
        "back_kv": ["Alumni: {t} ({y})", "Former students: {t}"],
    },
    "teacher": {
        "fwd": ["{S} took lessons from {t} from {y}.", "{S} was coached by {t}.", "{P_cap} teacher was {t}."],
        "back": ["{S} taught {t}.", "{t} took lessons from {O} from {y}.", "Among {P} pupils was {t}."],
        "fwd_kv": ["Teacher: {t}", "Coached by: {t} (from {y})"],
        "back_kv": ["Pupils: {t}", "Taught: {t} (from {y})"],
    },
    "bred": {
        "fwd": ["{S} was raised by {t} in {y}.", "{t} bred {O} in {y}.", "{S} is a seedling selected by {t}."],
        "back": ["{S} raised {t} in {y}.", "{t} was selected by {O} in {y}.", "{S} bred {t}."],
        "fwd_kv": ["Breeder: {t}", "Raised by: {t} ({y})"],
        "back_kv": ["Plants raised: {t} ({y})", "Seedlings selected: {t}"],
    },
    "introduced": {
        "fwd": [
            "{S} was introduced to the trade by {t} in {y}.",
            "{t} first offered {O} for sale in {y}.",
            "{S} reached gardens through {t}.",
        ],
        "back": [
            "{S} introduced {t} in {y}.",
            "{t} was first sold by {O} in {y}.",
            "{P_cap} list of {y} first offered {t}.",
        ],
        "fwd_kv": ["Introduced by: {t}", "Introducer: {t} ({y})"],
        "back_kv": ["Introductions: {t} ({y})", "First offered: {t}"],
    },
    "named_for": {
        "fwd": ["{S} was named in honour of {t}.", "{S} commemorates {t}.", "{S} takes its name from {t}."],
        "back": ["{t} was named in {P} honour.", "{t} commemorates {O}.", "A plant, {t}, bears {P} name."],
        "fwd_kv": ["Named for: {t}", "Honours: {t}"],
        "back_kv": ["Namesake plant: {t}", "Plants in {P} honour: {t}"],
    },
    "curator": {
        "fwd": [
            "{S} has been in the care of {t} since {y}.",
            "{t} became curator of {O} in {y}.",
            "{P_cap} curator is {t}.",
        ],
        "back": [
            "{S} has been curator of {t} since {y}.",
            "In {y} {N} took charge of {t} as curator.",
            "{S} is keeper of {t}.",
        ],
        "fwd_kv": ["Curator: {t}", "Keeper: {t} (since {y})"],
        "back_kv": ["Curatorship: {t} (from {y})", "Keeper of: {t}"],
    },
    "trained": {
        "fwd": [
            "{S} served an apprenticeship at {t}, finishing in {y}.",
            "{S} learned the craft at {t}.",
            "{S} was a student gardener at {t} until {y}.",
        ],
        "back": [
            "{t} served an apprenticeship here, finishing in {y}.",
            "{t} learned the craft at {O}.",
            "Among {P} former student gardeners is {t}.",
        ],
        "fwd_kv": ["Apprenticeship: {t}", "Trained at: {t} ({y})"],
        "back_kv": ["Former apprentices: {t}", "Student gardeners: {t} (to {y})"],
    },
    "made_by": {
        "fwd": ["{S} was produced by {t} in {y}.", "{t} fired {O} in {y}.", "{S} bears the mark of {t}."],
        "back": ["{S} produced {t} in {y}.", "{t} was fired at {O} in {y}.", "{t} carries {P} mark."],
        "fwd_kv": ["Maker: {t}", "Factory mark: {t}"],
        "back_kv": ["Wares: {t} ({y})", "Pieces produced: {t}"],
    },
    "depicts": {
        "fwd": ["{S} is painted with {t}.", "{S} shows sprays of {t}.", "{S} is decorated with {t}."],
        "back": ["{S} is painted on {t}.", "{S} appears on {t}.", "Sprays of {O} decorate {t}."],
        "fwd_kv": ["Decoration: {t}", "Pattern: {t}"],
        "back_kv": ["Depicted on: {t}", "Painted on: {t}"],
    },
}

CUES: dict[str, str] = {
    "born": r"born|birthplace|came into the world|natives?|births|children of",
    "in": r"stands in|based|premises|home to|location|address|institutions|located",
    "province": r"lies (in|within)|administered|belongs to|province|administrative|settlements|includes|takes in",
    "founded": r"found|establish|set (it )?up|existence",
    "composed": r"opera by|compos|score|music|works|operas",
    "premiered": r"premiere|first perform|opened at",
    "label": r"issued|releas|catalogue|label",
    "soloist": r"title role|sings|sang|soloist|recordings|voice|heard on",
    "of_opera": r"recording|recorded|performance of|whole of|programme",
    "studied": r"studied|graduat|trained at|students|education|alma mater|alumni",
    "teacher": r"lessons|coached|teacher|taught|pupils",
    "bred": r"raised|bred|breeder|seedling|selected",
    "introduced": r"introduc|offered|sold|reached gardens",
    "named_for": r"honou?r|commemorat|takes its name|namesake|bears|named",
    "curator": r"curator|care of|keeper|took charge",
    "trained": r"apprentice|learned the craft|student gardener|trained at",
    "made_by": r"produc|fired|mark|maker|wares",
    "depicts": r"painted|sprays|decorat|pattern|depicted|appears on",
}

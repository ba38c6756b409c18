"""One-relation questions that name no relation type (#28, session 13): "Who was the captain of the
Swift Otter?" asks for the page one link from the ship, the captain's, which shares only the ship's
name with the question; hybrid search ranks the ship's own page first and its namesakes (the other
"Otter" boats) next, the captain's page below them. The `kg` ranker walks one phrase step from the
ship ("~skippered the", likest "captain") and places that page right after hybrid's first hit,
through the search endpoint. Before this, such a question was hybrid search's alone.
"""

from __future__ import annotations

from pathlib import Path

from openai import OpenAI

from tests.knowledge_graph.test_knowledge_graph import KG
from tests.support.procs import Backend, gateway
from tests.support.retrieval_helpers import upload_pages

BOATS = {
    "swift.md": "# Swift Otter\n\nThe Swift Otter is a two-masted fishing ketch built of oak in 1911. "
    "The Swift Otter carried herring and later served as a pilot boat.",
    "tordal.md": "# Ivo Tordal\n\nIvo Tordal is a seaman from a family of net makers. "
    "Tordal skippered the Swift Otter for twelve seasons. He retired to a cottage by the dunes.",
    # namesakes sharing the question's words: hybrid search ranks them above the captain's page
    "grey.md": "# Grey Otter\n\nThe Grey Otter is a fishing ketch. The Grey Otter had a captain, "
    "as every otter boat had a captain, and a crew of five.",
    "silver.md": "# Silver Otter\n\nThe Silver Otter is a fishing ketch. Who was the captain of the "
    "Silver Otter is not recorded.",
    "brown.md": "# Brown Otter\n\nThe Brown Otter is a fishing ketch with a captain and a cook.",
    "otters.md": "# Otter boats\n\nThe Swift Otter, the Grey Otter, the Silver Otter and the Brown Otter "
    "were the otter boats; each captain was chosen by the owners.",
    "harbour.md": "# Harbour log\n\nThe harbour log lists the captain of every boat, the Swift Otter's too, "
    "by tide and berth.",
}
QUESTION = "Who was the captain of the Swift Otter?"

# a title keeping lower-case function words ("A Summer at Tarn"): looked up whole, not as its parts,
# whose "Tarn" is a village with neighbours of its own (the namesake start)
NOVELS = {
    # the link is stated on the novel's own page (its title is the page's subject, whatever order the
    # files are extracted in: another page names the title only once the title is known)
    "summer.md": "# A Summer at Tarn\n\nA Summer at Tarn is a novel of 1931 about a family of lake fishers. "
    "Ola Brenn drew its pictures.",
    "brenn.md": "# Ola Brenn\n\nOla Brenn is an engraver from the coast.",
    "tarn.md": "# Tarn\n\nTarn is a lake village. Ivo Hald illustrated the Tarn museum guide. "
    "Kari Lunn illustrated the Tarn church book.",
    "hald.md": "# Ivo Hald\n\nIvo Hald is a painter of lakes and boats.",
    "lunn.md": "# Kari Lunn\n\nKari Lunn is a painter of churches.",
    "velm.md": "# A Summer at Velm\n\nA Summer at Velm is an illustrated novel about a summer at a lake.",
    "books.md": "# Illustrated books\n\nWho illustrated a book is told on its title page: summer books of "
    "Tarn were illustrated by many.",
    "guide.md": "# Lake summer guide\n\nAn illustrated guide to a lake summer, with Tarn on its map.",
}
TITLED = "Who illustrated A Summer at Tarn?"


def test_a_one_relation_question_ranks_the_page_one_phrase_step_away(backend: Backend, tmp_path: Path) -> None:
    """The captain's page right after the ship's own page under kg; hybrid search ranks it lower."""
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        client = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        store = upload_pages(client, "kg-one-hop", BOATS)
        page = client.vector_stores.search(store.id, query=QUESTION, ranking_options=KG)  # type: ignore[arg-type]
        ranked = list(dict.fromkeys(store.names[h.file_id] for h in page.data))
        hybrid = client.vector_stores.search(store.id, query=QUESTION)
        plain = list(dict.fromkeys(store.names[h.file_id] for h in hybrid.data))
        assert plain.index("tordal.md") > 2, plain
        assert "tordal.md" in ranked[:2], ranked
        # hybrid's first hit keeps its place
        assert ranked[0] == plain[0], (ranked, plain)
        # typed in lower case, the ship's name is a page's title: looked up as a lower-case run
        lower = QUESTION.lower()
        page = client.vector_stores.search(store.id, query=lower, ranking_options=KG)  # type: ignore[arg-type]
        ranked = list(dict.fromkeys(store.names[h.file_id] for h in page.data))
        hybrid = client.vector_stores.search(store.id, query=lower)
        plain = list(dict.fromkeys(store.names[h.file_id] for h in hybrid.data))
        assert plain.index("tordal.md") > 2 and "tordal.md" in ranked[:2], (ranked, plain)
        novels = upload_pages(client, "kg-one-hop-title", NOVELS)
        page = client.vector_stores.search(novels.id, query=TITLED, ranking_options=KG)  # type: ignore[arg-type]
        ranked = list(dict.fromkeys(novels.names[h.file_id] for h in page.data))
        hybrid = client.vector_stores.search(novels.id, query=TITLED)
        plain = list(dict.fromkeys(novels.names[h.file_id] for h in hybrid.data))
        assert "brenn.md" in ranked[:3] and ranked.index("brenn.md") < plain.index("brenn.md"), (ranked, plain)

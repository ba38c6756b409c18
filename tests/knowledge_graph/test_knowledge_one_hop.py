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
        ranked = store.ranked(page.data)
        hybrid = client.vector_stores.search(store.id, query=QUESTION)
        plain = store.ranked(hybrid.data)
        assert plain.index("tordal.md") > 2, plain
        assert "tordal.md" in ranked[:2], ranked
        # hybrid's first hit keeps its place
        assert ranked[0] == plain[0], (ranked, plain)
        # typed in lower case, the ship's name is a page's title: looked up as a lower-case run
        lower = QUESTION.lower()
        page = client.vector_stores.search(store.id, query=lower, ranking_options=KG)  # type: ignore[arg-type]
        ranked = store.ranked(page.data)
        hybrid = client.vector_stores.search(store.id, query=lower)
        plain = store.ranked(hybrid.data)
        assert plain.index("tordal.md") > 2 and "tordal.md" in ranked[:2], (ranked, plain)
        novels = upload_pages(client, "kg-one-hop-title", NOVELS)
        page = client.vector_stores.search(novels.id, query=TITLED, ranking_options=KG)  # type: ignore[arg-type]
        ranked = novels.ranked(page.data)
        hybrid = client.vector_stores.search(novels.id, query=TITLED)
        plain = novels.ranked(hybrid.data)
        assert "brenn.md" in ranked[:3] and ranked.index("brenn.md") < plain.index("brenn.md"), (ranked, plain)


# a product's documentation: how-to questions naming the product, each with two relevant pages; the
# product's own page states its creator and its cache, one phrase step away (#28 session 13 review)
DOCS = {
    "kestrel.md": "# Kestrel\n\nKestrel is an open-source message broker. Kestrel was created by Mira Olsen in 2015. "
    "Kestrel uses Redis for its delivery cache. Kestrel is sponsored by Northwind Labs. Kestrel runs on Linux.",
    "olsen.md": "# Mira Olsen\n\nMira Olsen is a programmer from Bergen. She studied at Bergen University.",
    "redis.md": "# Redis\n\nRedis is an in-memory key-value database.",
    "northwind.md": "# Northwind Labs\n\nNorthwind Labs is a venture firm in Oslo that funds open-source projects.",
    "tls.md": "# Enabling TLS in Kestrel\n\nSet tls.enabled to true in kestrel.yaml and give the paths of the "
    "certificate and key files. Restart the broker for TLS to take effect.",
    "certs.md": "# Kestrel certificates\n\nKestrel reads its TLS certificate and private key from PEM files. "
    "Rotate them with kestrelctl certs reload; TLS clients then see the new certificate.",
    "logging.md": "# Kestrel logging\n\nKestrel writes its log to /var/log/kestrel/broker.log. "
    "Set log.level in kestrel.yaml.",
    "levels.md": "# Log levels\n\nThe log levels of Kestrel are debug, info, warn and error; the default is info.",
    "metrics.md": "# Kestrel metrics\n\nKestrel exports Prometheus metrics on port 9400: "
    "queue depth, delivery latency.",
    "queues.md": "# Kestrel queues\n\nCreate a queue with kestrelctl queue create NAME; "
    "delete it with kestrelctl queue delete.",
    "retention.md": "# Queue retention\n\nKestrel keeps messages of a queue for seven days; "
    "set queue.retention to change it.",
    "install.md": "# Installing Kestrel\n\nInstall Kestrel from the apt repository or the tarball.",
}
HOW_TO = [
    "How do I enable TLS in Kestrel?",
    "Where does Kestrel write its log?",
    "How long does Kestrel keep messages in a queue?",
    "How do I create a queue in Kestrel?",
    "how do i enable tls in kestrel",
    "how do i change the log level in kestrel",
]
# a long page: its first chunk is about something else, the relation is stated in its last one
FILLER = " ".join(f"In {1890 + i} Tordal mended nets and talked about the winter storms." for i in range(260))
LONG = {
    "swift.md": BOATS["swift.md"],
    "tordal.md": "# Ivo Tordal\n\nIvo Tordal is a seaman from a family of net makers. "
    + FILLER
    + " Late in life Tordal skippered the Swift Otter: he was the captain of the Swift Otter for twelve seasons.",
    "grey.md": BOATS["grey.md"],
    "harbour.md": "# Harbour log\n\nThe harbour log lists every boat by tide and berth.",
}
# a lower-case one-relation question asking a relation type the patterns know (born in)
BORN = {
    "tordal.md": "# Ivo Tordal\n\nIvo Tordal is a seaman. Ivo Tordal was born in Vesterby. Tordal skippered the "
    "Swift Otter. Tordal sang with the Harbour Choir.",
    "vesterby.md": "# Vesterby\n\nVesterby is a fishing village on the north coast.",
    "swift.md": "# Swift Otter\n\nThe Swift Otter is a fishing ketch.",
    "choir.md": "# Harbour Choir\n\nThe Harbour Choir is a choir of fishermen.",
    "ivo.md": "# Ivo Tordal the younger\n\nIvo Tordal the younger, a nephew, was born in a city.",
    "births.md": "# Births register\n\nThe births register lists where each seaman was born.",
    "tordals.md": "# The Tordal family\n\nThe Tordal family were net makers; several Tordals were born on the coast.",
}


def test_the_one_phrase_path_leaves_how_to_questions_and_places_the_chunk_stating_the_relation(
    backend: Backend, tmp_path: Path
) -> None:
    """How-to questions naming a product keep hybrid's ranking (the product's creator and cache, one
    phrase step from it, are placed only when hybrid ranks the product's own page in its top 3); a
    placed page is its chunk stating the relation, once; a lower-case question asking a known
    relation type walks that type."""
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        client = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        docs = upload_pages(client, "kg-one-hop-docs", DOCS)
        for question in HOW_TO:
            page = client.vector_stores.search(docs.id, query=question, ranking_options=KG)  # type: ignore[arg-type]
            ranked = docs.ranked(page.data)
            hybrid = client.vector_stores.search(docs.id, query=question)
            plain = docs.ranked(hybrid.data)
            assert ranked[:5] == plain[:5], (question, ranked, plain)
        # the long page: its chunk naming the ship, and no second chunk of it, right after the ship's
        boats = upload_pages(client, "kg-one-hop-long", LONG)
        page = client.vector_stores.search(boats.id, query=QUESTION, ranking_options=KG)  # type: ignore[arg-type]
        top = [(boats.names[h.file_id], h) for h in page.data[:3]]
        assert [n for n, _h in top][:2] == ["swift.md", "tordal.md"], [n for n, _h in top]
        assert len({n for n, _h in top}) == 3, [n for n, _h in top]
        assert "Swift Otter" in "".join(c.text for c in top[1][1].content), top[1][1].content
        born = upload_pages(client, "kg-one-hop-born", BORN)
        page = client.vector_stores.search(born.id, query="where was ivo tordal born", ranking_options=KG)  # type: ignore[arg-type]
        ranked = born.ranked(page.data)
        assert "vesterby.md" in ranked[:2], ranked

"""A chain completed by phrase relations alone does not outrank hybrid's best hit (#28), through the
search endpoint.

"How do I check the SHA256 checksum of a downloaded file?" names SHA256, which the graph knows,
and its grammar reads two relations. From SHA256 the walk steps along whatever untyped phrase at
each entity is likest to what the question still asks ("based on checksums like", "a checksum is
calculated by the"): some phrase always is, so the chain completes at a page the question never
asked about. Before, the kg ranker put that walk's pages (hardlink, Linux) above `sha256sum.md`,
hybrid's right first hit (bench/doc_questions.py: 6 of 45 how-to questions lost their page so).
No page of the store is about SHA256 (the pages only mention it), and the question names no
relation type: nothing says this is a chain's start. Now hybrid's ranking leads and the walk's
pages are interleaved after its first hit. A chain whose walk matched a relation type the question
asked for ("the designer" -> made_by) keeps the walk's answer first, and so does one of phrases
alone from an entity a page is about ("the mentor of Mabel Quist", "grow up").
"""

from __future__ import annotations

from pathlib import Path

from openai import OpenAI

from tests.knowledge_graph.test_knowledge_chain_questions import GARDENS
from tests.knowledge_graph.test_knowledge_graph import KG
from tests.support.procs import Backend, gateway
from tests.support.retrieval_helpers import upload_pages

TOOLS = {
    "sha256sum.md": "# sha256sum\n\nsha256sum computes and checks SHA256 message digests. Print or check SHA256 "
    "(256-bit) checksums of files. With --check, read the SHA256 sums from the given files and verify them "
    "against the downloaded files.\n",
    "sha1sum.md": "# sha1sum\n\nsha1sum computes and checks SHA1 message digests of files. Print or check SHA1 "
    "(160-bit) checksums.\n",
    "hardlink.md": "# hardlink\n\nhardlink finds duplicate files in a directory tree and replaces them with hard "
    "links to save space. Set the file content comparison method with --method. The other method is based on "
    "checksums like SHA256. The data block a checksum is calculated by the Linux kernel crypto API.\n",
    "openssl-verify.md": "# openssl-verify\n\nThe verify command checks certificate chains. The digest is computed "
    "by the crypto API of OpenSSL. Linux distributions ship it by default.\n",
    "linux.md": "# Linux\n\nLinux is a kernel. Its crypto API offers hashes used by tools such as hardlink and "
    "openssl-verify.\n",
}

HOW_TO = "How do I check the SHA256 checksum of a downloaded file?"
TYPED = "Where did the mentor of the Orrin Physic Garden's designer grow up?"  # made_by, then phrases
PHRASES = "Where did the mentor of Mabel Quist grow up?"  # phrases alone, a real chain


def test_a_chain_of_phrases_alone_keeps_hybrids_first_hit(backend: Backend, tmp_path: Path) -> None:
    with gateway(backend.url, tmp_path, GATEWAY_AUTH="none") as gw:
        own = OpenAI(base_url=gw.url, api_key="unused", max_retries=0)
        store = upload_pages(own, "kg-phrase-chain", {**GARDENS, **TOOLS})

        def ranked(question: str, kg: bool) -> list[str]:
            options = {"ranking_options": KG} if kg else {}
            page = own.vector_stores.search(store.id, query=question, **options)  # type: ignore[arg-type]
            return store.ranked(page.data)

        # the how-to question: hybrid's right page stays first; the walk's pages (hardlink, Linux: the
        # path went through hardlink to Linux) are interleaved after it
        hybrid, kg = ranked(HOW_TO, False), ranked(HOW_TO, True)
        assert hybrid[0] == "sha256sum.md", hybrid
        assert kg[0] == "sha256sum.md", kg
        assert kg[1] in ("hardlink.md", "linux.md") and kg[1] != hybrid[1], (kg, hybrid)
        page = own.vector_stores.search(store.id, query=HOW_TO, ranking_options=KG)  # type: ignore[arg-type]
        entities = page.model_dump()["entities"]
        assert [e["name"] for e in entities["query"]] == ["SHA256"], entities
        assert "Linux" in [e["name"] for e in entities["expanded"]], entities  # where the phrases led

        # a chain the walk matched a relation type of: its answer first, not hybrid's
        assert ranked(TYPED, True)[0] == "dunmere.md" != ranked(TYPED, False)[0]
        # a chain of phrases alone from a page's title (Mabel Quist's): the walk's answer first
        hybrid, kg = ranked(PHRASES, False), ranked(PHRASES, True)
        assert kg[0] == "dunmere.md" != hybrid[0], (kg, hybrid)

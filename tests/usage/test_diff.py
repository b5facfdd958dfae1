"""The diff between the last reported usage and a new build's manifest."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mediashortcodes.usage.manifest import Manifest, PageChange, PageUsage, diff

SITE = "https://s.org"


def manifest(**pages: tuple[str, list[int]]) -> Manifest:
    return Manifest.from_pages(SITE, [(f"{SITE}/{k}/", t, f) for k, (t, f) in pages.items()])


def test_a_first_report_adds_every_file_of_every_page() -> None:
    current = manifest(a=("A", [2, 1]), b=("B", [3]))
    assert diff(Manifest(SITE), current) == [
        PageChange(f"{SITE}/a/", "A", (1, 2), ()),
        PageChange(f"{SITE}/b/", "B", (3,), ()),
    ]


def test_unchanged_pages_are_not_sent_again() -> None:
    current = manifest(a=("A", [1]), b=("B", [3]))
    assert diff(current, current) == []


def test_a_changed_page_sends_only_its_added_and_dropped_files() -> None:
    previous = manifest(a=("A", [1, 2, 3]))
    current = manifest(a=("A", [2, 3, 4, 5]))
    assert diff(previous, current) == [PageChange(f"{SITE}/a/", "A", (4, 5), (1,))]


def test_a_deleted_page_removes_all_its_files_under_its_last_title() -> None:
    previous = manifest(a=("A", [1]), gone=("Gone", [4, 2]))
    current = manifest(a=("A", [1]))
    assert diff(previous, current) == [PageChange(f"{SITE}/gone/", "Gone", (), (2, 4))]


def test_a_renamed_page_sends_all_its_files_again_under_the_new_title() -> None:
    previous = manifest(a=("Old", [1, 2]))
    current = manifest(a=("New", [2, 3]))
    assert diff(previous, current) == [PageChange(f"{SITE}/a/", "New", (2, 3), (1,))]


def test_send_all_resends_every_current_file_and_still_removes_dropped_ones() -> None:
    previous = manifest(a=("A", [1, 2]), gone=("Gone", [9]))
    current = manifest(a=("A", [2]), b=("B", [3]), empty=("Empty", []))
    assert diff(previous, current, send_all=True) == [
        PageChange(f"{SITE}/a/", "A", (2,), (1,)),
        PageChange(f"{SITE}/b/", "B", (3,), ()),
        PageChange(f"{SITE}/gone/", "Gone", (), (9,)),
    ]


def test_a_page_without_files_has_nothing_to_send() -> None:
    assert diff(Manifest(SITE), manifest(empty=("Empty", []))) == []


def test_pending_files_are_sent_again_while_used_and_removed_once_dropped() -> None:
    # The service may or may not hold a pending file (its answer was lost): an addition
    # is sent again while the page uses it, a removal once it stops.
    previous = Manifest(
        SITE,
        {
            f"{SITE}/a/": PageUsage("A", (1,), pending=(2, 3)),
            f"{SITE}/gone/": PageUsage("Gone", (), pending=(7,)),
        },
    )
    current = manifest(a=("A", [1, 2]))
    assert diff(previous, current) == [
        PageChange(f"{SITE}/a/", "A", (2,), (3,)),
        PageChange(f"{SITE}/gone/", "Gone", (), (7,)),
    ]


pages = st.dictionaries(
    st.sampled_from("abcdef"),
    st.tuples(st.sampled_from(["T", "U"]), st.lists(st.integers(0, 20), max_size=6)),
)


@given(pages, pages)
def test_applying_the_diff_to_the_previous_state_gives_the_current_files(old, new) -> None:
    previous, current = manifest(**old), manifest(**new)
    state = {url: set(page.files) for url, page in previous.pages.items()}
    for change in diff(previous, current):
        files = state.setdefault(change.url, set())
        assert not set(change.added) & set(change.removed)
        files |= set(change.added)
        files -= set(change.removed)
    expected = {url: set(page.files) for url, page in current.pages.items() if page.files}
    assert {url: files for url, files in state.items() if files} == expected


@given(pages, pages, st.data())
def test_whatever_the_service_did_with_pending_files_the_diff_ends_right(old, new, data) -> None:
    previous = Manifest(
        SITE,
        {
            f"{SITE}/{k}/": PageUsage(t, tuple(sorted(set(f[::2]))), tuple(sorted(set(f[1::2]))))
            for k, (t, f) in old.items()
        },
    )
    current = manifest(**new)
    service = {}
    for url, page in previous.pages.items():
        held = data.draw(st.sets(st.sampled_from(page.pending)) if page.pending else st.just(set()))
        service[url] = set(page.files) | held
    for change in diff(previous, current):
        files = service.setdefault(change.url, set())
        files |= set(change.added)
        files -= set(change.removed)
    expected = {url: set(page.files) for url, page in current.pages.items() if page.files}
    assert {url: files for url, files in service.items() if files} == expected

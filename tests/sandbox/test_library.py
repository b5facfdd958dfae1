"""The demo library, synthetic libraries, and changing files as tests do."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from mediashortcodes.sandbox import HIDDEN_FOLDER_ID, Library
from mediashortcodes.sandbox.imaging import Drawing, draw, encode


@pytest.fixture(scope="module")
def demo() -> Library:
    return Library.demo()


def test_demo_has_about_twenty_images_in_jpg_and_png(demo):
    images = [f for f in demo.files() if not f.is_video and demo.is_visible(f.folder_id)]
    assert len(images) == 20
    assert {f.extension for f in images} == {"jpg", "png"}


def test_demo_images_have_alt_texts_and_some_are_empty(demo):
    alts = [f.alttext for f in demo.files() if not f.is_video]
    assert sum(1 for a in alts if a) >= 15 and "" in alts


def test_demo_has_five_visible_videos_with_safe_media_ids(demo):
    videos = [f for f in demo.files() if f.is_video and demo.is_visible(f.folder_id)]
    assert len(videos) == 5
    assert all(v.media_id and v.media_id.isalnum() for v in videos)


def test_demo_folder_tree_is_nested_to_depth_two_with_one_hidden_folder(demo):
    assert {demo.depth(f.id) for f in demo.visible_folders()} == {0, 1, 2}
    assert [f.id for f in demo.folders() if not demo.is_visible(f.id)] == [HIDDEN_FOLDER_ID]
    assert demo.files_in(HIDDEN_FOLDER_ID)


def test_demo_marks_at_least_one_file_as_not_gdpr_ok(demo):
    assert any(f.gdpr_status != "OK" for f in demo.files())
    assert {f.gdpr_type for f in demo.files()} == {"NO_PERSON", "EXTERN_CONTRACT"}


def test_demo_upload_times_carry_milliseconds_and_an_offset(demo):
    for file in demo.files():
        assert file.uploaded[19] == "." and file.uploaded[-6] in "+-", file.uploaded


def test_an_image_decodes_to_its_listed_size_and_type(demo):
    data = demo.original(103)
    with Image.open(io.BytesIO(data)) as image:
        assert image.size == (800, 1200) and image.format == "JPEG"
    with Image.open(io.BytesIO(demo.original(105))) as image:
        assert image.format == "PNG"


def test_images_are_byte_identical_every_time_they_are_drawn(demo):
    spec = demo.file(101).drawing()
    first = demo.original(101)
    draw.cache_clear()
    assert draw(spec) == first


def test_a_video_has_no_image_bytes(demo):
    with pytest.raises(ValueError, match="video"):
        demo.original(201)


def test_search_matches_words_in_name_filename_and_alt_text_case_insensitively(demo):
    assert [f.id for f in demo.search("LIGHTHOUSE")] == [109]
    assert [f.id for f in demo.search("moored harbour")] == [110]
    assert [f.id for f in demo.search("old-town-map.png")] == [114]


def test_search_never_finds_files_of_the_hidden_folder(demo):
    assert demo.search("unreleased") == []
    assert all(demo.is_visible(f.folder_id) for f in demo.search(""))


def test_replace_data_changes_bytes_size_and_upload_time():
    library = Library.demo()
    before = library.file(101)
    data = encode(Image.new("RGB", (40, 30), (1, 2, 3)), "jpg")
    after = library.replace_data(101, data)
    assert library.original(101) == data
    assert (after.width, after.height) == (40, 30)
    assert after.uploaded != before.uploaded
    assert library.filesize(after) == len(data)


def test_changes_to_one_library_do_not_leak_into_another():
    changed = Library.demo()
    changed.update(101, alttext="changed")
    assert Library.demo().file(101).alttext != "changed"


def test_add_image_reads_the_size_from_the_bytes():
    library = Library.demo()
    data = encode(Image.new("RGB", (64, 48)), "png")
    file = library.add_image(1, "Hostile <alt>", data=data, filename="x.png", alttext='"><script>')
    assert (file.width, file.height) == (64, 48)
    assert library.visible_file(file.id) == file


def test_adding_to_a_missing_folder_is_refused():
    with pytest.raises(ValueError, match="no folder 99"):
        Library.demo().add_image(99, "Lost")


def test_add_image_refuses_bytes_that_are_not_an_image():
    with pytest.raises(ValueError, match="not a decodable image"):
        Library.demo().add_image(1, "Broken", data=b"not an image")


def test_synthetic_library_has_the_asked_counts_and_distinct_images():
    library = Library.synthetic(images=30, videos=5, folders=6, seed=3)
    visible = [f for f in library.files() if library.is_visible(f.folder_id)]
    assert sum(1 for f in visible if not f.is_video) == 30
    assert sum(1 for f in visible if f.is_video) == 5
    assert len(library.visible_folders()) == 6
    assert max(library.depth(f.id) for f in library.folders()) <= 2
    assert len({library.original(f.id) for f in visible if not f.is_video}) == 30


def test_synthetic_library_is_the_same_for_the_same_seed():
    one, two = Library.synthetic(10, 2, 4, seed=1), Library.synthetic(10, 2, 4, seed=1)
    assert one.files() == two.files() and one.original(1) == two.original(1)


def test_drawing_a_spec_gives_an_image_of_that_size():
    with Image.open(io.BytesIO(draw(Drawing(321, 123, "png", 5, "label")))) as image:
        assert image.size == (321, 123)

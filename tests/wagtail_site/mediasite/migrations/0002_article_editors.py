# ruff: noqa: RUF012, E501
# Made by makemigrations; the rich-text body renamed to intro by hand, so its content stays.

import wagtail.fields
from django.db import migrations

import mediashortcodes.wagtail.fields


class Migration(migrations.Migration):
    dependencies = [
        ("mediasite", "0001_initial"),
    ]

    operations = [
        migrations.AddField(
            model_name="articlepage",
            name="hero",
            field=mediashortcodes.wagtail.fields.MediaFileField(
                blank=True, kind="image", null=True
            ),
        ),
        migrations.RenameField(model_name="articlepage", old_name="body", new_name="intro"),
        migrations.AddField(
            model_name="articlepage",
            name="body",
            field=wagtail.fields.StreamField(
                [("text", 0), ("image", 13), ("video", 19)],
                blank=True,
                block_lookup={
                    0: (
                        "wagtail.blocks.RichTextBlock",
                        (),
                        {"features": ["bold", "italic", "link", "media"]},
                    ),
                    1: ("mediashortcodes.wagtail.blocks.MediaFileBlock", (), {"kind": "image"}),
                    2: (
                        "wagtail.blocks.CharBlock",
                        (),
                        {
                            "help_text": "original, a format's name or id; empty: the default format",
                            "required": False,
                        },
                    ),
                    3: (
                        "wagtail.blocks.CharBlock",
                        (),
                        {"help_text": "Empty: the file's alt text", "required": False},
                    ),
                    4: (
                        "wagtail.blocks.BooleanBlock",
                        (),
                        {"help_text": 'No alt text (alt="")', "required": False},
                    ),
                    5: ("wagtail.blocks.CharBlock", (), {"required": False}),
                    6: ("wagtail.blocks.CharBlock", (), {"label": "Class", "required": False}),
                    7: (
                        "wagtail.blocks.ChoiceBlock",
                        [],
                        {
                            "choices": [("lazy", "lazy"), ("eager", "eager")],
                            "help_text": "Empty: lazy",
                            "required": False,
                        },
                    ),
                    8: (
                        "wagtail.blocks.CharBlock",
                        (),
                        {"help_text": "e.g. 480,960,1440", "required": False},
                    ),
                    9: ("wagtail.blocks.IntegerBlock", (), {"min_value": 1, "required": False}),
                    10: ("wagtail.blocks.IntegerBlock", (), {"min_value": 0, "required": False}),
                    11: ("wagtail.blocks.BooleanBlock", (), {"required": False}),
                    12: (
                        "wagtail.blocks.StructBlock",
                        [
                            [
                                ("w", 9),
                                ("h", 9),
                                ("sw", 9),
                                ("sh", 9),
                                ("x1", 10),
                                ("x2", 10),
                                ("y1", 10),
                                ("y2", 10),
                                ("stretch", 11),
                            ]
                        ],
                        {},
                    ),
                    13: (
                        "wagtail.blocks.StructBlock",
                        [
                            [
                                ("file", 1),
                                ("format", 2),
                                ("alt", 3),
                                ("decorative", 4),
                                ("caption", 5),
                                ("title", 5),
                                ("css_class", 6),
                                ("loading", 7),
                                ("widths", 8),
                                ("sizes", 5),
                                ("crop", 12),
                            ]
                        ],
                        {},
                    ),
                    14: ("mediashortcodes.wagtail.blocks.MediaFileBlock", (), {"kind": "video"}),
                    15: (
                        "wagtail.blocks.ChoiceBlock",
                        [],
                        {
                            "choices": [("iframe", "iframe"), ("script", "script")],
                            "help_text": "Empty: [video] embed",
                            "required": False,
                        },
                    ),
                    16: (
                        "wagtail.blocks.CharBlock",
                        (),
                        {"help_text": "Empty: the file's name", "required": False},
                    ),
                    17: (
                        "wagtail.blocks.ChoiceBlock",
                        [],
                        {
                            "choices": [("eager", "eager"), ("click", "click")],
                            "help_text": "Empty: [video] load",
                            "required": False,
                        },
                    ),
                    18: (
                        "wagtail.blocks.CharBlock",
                        (),
                        {"help_text": "Empty: [video] language", "required": False},
                    ),
                    19: (
                        "wagtail.blocks.StructBlock",
                        [[("file", 14), ("embed", 15), ("title", 16), ("load", 17), ("lang", 18)]],
                        {},
                    ),
                },
            ),
        ),
    ]

"""A MkDocs or Zensical project read without MkDocs: what ``mediashortcodes finish`` and
``mediashortcodes report`` need to know about it.

``mkdocs.yml`` (or ``zensical.toml``'s ``[project]``) gives ``site_url``, ``site_dir``,
``docs_dir``, ``site_name`` and ``use_directory_urls``; the media settings are the plugin's
options in ``mkdocs.yml`` (``plugins: [mediashortcodes: {...}]``, which Zensical ignores)
or ``mediashortcodes.toml`` beside it. Pages are the Markdown files of ``docs_dir``, written
where MkDocs writes them.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

import yaml

from ..config import Config
from ..errors import ConfigError
from ..site.hosted import host_config
from ..site.pages import display_path

__all__ = ["HostProject", "ProjectPage", "find_project"]

PLUGIN = "mediashortcodes"


@dataclass(frozen=True)
class ProjectPage:
    source: Path
    output_file: str  # relative to site_dir: "blog/post/index.html"
    url: str  # as MkDocs links it: "blog/post/" (or "blog/post.html"), "" for the home page


@dataclass(frozen=True)
class HostProject:
    config_file: Path
    site_dir: Path
    docs_dir: Path
    site_url: str = ""
    site_name: str = ""
    directory_urls: bool = True
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def root(self) -> Path:
        return self.config_file.parent

    def config(self, *, require_site_url: bool = True) -> Config:
        """The media settings, with ``[site] base_url`` from ``site_url``."""
        where = f"{display_path(self.config_file)} (plugins: {PLUGIN})"
        return host_config(
            self.options,
            self.root,
            where,
            site_url=self.site_url,
            site_url_key=f"site_url in {display_path(self.config_file)}",
            require_site_url=require_site_url,
        )

    def pages(self) -> Iterator[ProjectPage]:
        """The Markdown pages of ``docs_dir``, each where MkDocs (and Zensical) write it."""
        for source in sorted(self.docs_dir.rglob("*.md")):
            relative = PurePosixPath(source.relative_to(self.docs_dir).as_posix())
            if any(part.startswith(".") for part in relative.parts):
                continue
            output_file, url = _destination(relative, self.directory_urls)
            yield ProjectPage(source, output_file, url)


def _destination(source: PurePosixPath, directory_urls: bool) -> tuple[str, str]:
    parent = "" if str(source.parent) == "." else f"{source.parent}/"
    if source.stem in ("index", "README"):
        output = f"{parent}index.html"
        return output, parent if directory_urls else output
    if directory_urls:
        return f"{parent}{source.stem}/index.html", f"{parent}{source.stem}/"
    return f"{parent}{source.stem}.html", f"{parent}{source.stem}.html"


def find_project(folder: Path) -> HostProject | None:
    """The MkDocs or Zensical project in ``folder`` (``mkdocs.yml`` first), or None."""
    for name in ("mkdocs.yml", "mkdocs.yaml"):
        if (folder / name).is_file():
            return _from_mkdocs(folder / name)
    if (folder / "zensical.toml").is_file():
        return _from_zensical(folder / "zensical.toml")
    return None


def _from_mkdocs(file: Path) -> HostProject:
    try:
        data = yaml.load(file.read_text(encoding="utf-8-sig"), Loader=_Loader)
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{display_path(file)}: cannot read it: {exc}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{display_path(file)}: not a MkDocs configuration")
    return _project(file, data, _plugin_options(data.get("plugins"), file))


def _from_zensical(file: Path) -> HostProject:
    try:
        data = tomllib.loads(file.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError) as exc:
        raise ConfigError(f"{display_path(file)}: cannot read it: {exc}") from None
    project = data.get("project")
    return _project(file, project if isinstance(project, dict) else {}, {})


def _project(file: Path, data: Mapping[str, Any], options: Mapping[str, Any]) -> HostProject:
    root = file.parent
    return HostProject(
        config_file=file,
        site_dir=(root / str(data.get("site_dir") or "site")).resolve(),
        docs_dir=(root / str(data.get("docs_dir") or "docs")).resolve(),
        site_url=str(data.get("site_url") or ""),
        site_name=str(data.get("site_name") or ""),
        directory_urls=bool(data.get("use_directory_urls", True)),
        options=options,
    )


def _plugin_options(plugins: Any, file: Path) -> Mapping[str, Any]:
    """The plugin's options: ``plugins`` is a list of names and one-key mappings, or a
    mapping of names."""
    entries = plugins.items() if isinstance(plugins, Mapping) else None
    if entries is None:
        entries = []
        for item in plugins or []:
            if isinstance(item, Mapping):
                entries.extend(item.items())
            else:
                entries.append((item, None))
    for name, options in entries:
        if name == PLUGIN:
            if options is not None and not isinstance(options, Mapping):
                raise ConfigError(
                    f"{display_path(file)}: the {PLUGIN} plugin's options must be a mapping"
                )
            return {k: v for k, v in (options or {}).items() if k != "report"}
    return {}


class _Loader(yaml.SafeLoader):
    """YAML as MkDocs reads it: ``!ENV`` is read from the environment; the Python tags of
    other extensions' settings (``!!python/name:...``) are no concern here."""


def _env(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    names = (
        [loader.construct_scalar(node)]  # type: ignore[arg-type]
        if isinstance(node, yaml.ScalarNode)
        else loader.construct_sequence(node)  # type: ignore[arg-type]
    )
    *variables, default = names if len(names) > 1 else (*names, None)
    for name in variables:
        if str(name) in os.environ:
            return os.environ[str(name)]
    return default


def _ignored(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> None:
    return None


_Loader.add_constructor("!ENV", _env)
_Loader.add_multi_constructor("tag:yaml.org,2002:python/", _ignored)
_Loader.add_multi_constructor("!", _ignored)

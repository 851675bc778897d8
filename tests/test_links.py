"""No broken links: every internal link, asset and #anchor of the built site resolves, offline.

The build's htmlproofer plugin already fails on bad links in page content; this checker reads
the built HTML itself, so it also covers the theme's navigation, table of contents and assets,
and still holds when the plugin is switched off (HTMLPROOFER=false). External links are listed
for a human (and written next to the screenshots) but never fetched."""
import functools
import textwrap

from tests.site_tools import announce, artifacts_dir, check_links

# The built site's report, read once per worker by the three tests that look at it.
site_report = functools.cache(check_links)


def test_every_internal_link_and_anchor_resolves(built_site):
    report = site_report(built_site)
    assert not report.broken, "broken links in the built site:\n  " + "\n  ".join(report.broken)


def test_external_links_are_listed_not_fetched(built_site, pytestconfig):
    report = site_report(built_site)
    listing = artifacts_dir() / "external-links.txt"
    lines = [f"{url}    <- {', '.join(sorted(pages))}" for url, pages in sorted(report.external.items())]
    listing.write_text("\n".join(lines) + "\n")
    announce(pytestconfig, f"\n{len(lines)} external links (not fetched) listed in {listing}")
    print("\n".join(lines))
    # Every external link is https: a reader's browser must not be sent to plain http.
    insecure = [url for url in report.external if url.startswith("http://")]
    assert not insecure, f"external links over plain http: {insecure}"


def test_no_asset_comes_from_off_the_machine(built_site):
    """Scripts, stylesheets, fonts, icons, images and frames are all served by the site itself
    (the browser test checks the same at run time, this covers every page statically). URLs
    that inline scripts could fetch on some condition are printed for a human."""
    report = site_report(built_site)
    assert not report.remote_assets, "assets loaded from off the machine:\n  " + "\n  ".join(
        report.remote_assets)
    if report.inline_remote:
        print("\nURLs named inside inline scripts (fetched only if the script decides to):\n  "
              + "\n  ".join(sorted(set(report.inline_remote))))


def _tiny_site(root, pages: dict[str, str]):
    for rel, html in pages.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(html))
    return root


def test_checker_catches_broken_links_and_anchors(tmp_path):
    """The checker is not vacuous: in a tiny site it flags a missing page, a missing anchor
    on another page and on the same page, a missing image and a link written from the published
    root (which leaves the site served from anywhere else), and accepts the good links."""
    site = _tiny_site(tmp_path, {
        "index.html": """
            <h1 id="top">Home</h1>
            <a href="threads/">ok</a> <a href="threads/#pinning">ok anchor</a>
            <a href="#top">ok self</a> <a href="threads/index.html#pinning">ok explicit</a>
            <img src="img/plot-light.svg#only-light"> <a href="https://pytorch.org/docs/">ext</a>
            <a href="mailto:someone@example.org">mail</a>
            <script src="https://cdn.example.org/lib.js"></script>
            <link rel="stylesheet" href="https://fonts.example.org/css">
            <a href="nowhere/">missing page</a>
            <a href="threads/#no-such-anchor">missing anchor</a>
            <a href="#nor-here">missing self anchor</a>
            <img src="img/missing.svg">
            <a href="/fast-pytorch-cpu/zh/">absolute</a>
            """,
        "threads/index.html": '<h2 id="pinning">Pinning</h2><a href="../">home</a>',
        "img/plot-light.svg": "<svg xmlns='http://www.w3.org/2000/svg'/>",
    })
    report = check_links(site)
    broken = "\n".join(report.broken)
    assert len(report.broken) == 5, broken
    for bad in ("nowhere/", "threads/#no-such-anchor", "#nor-here", "img/missing.svg", "/fast-pytorch-cpu/zh/"):
        assert bad in broken
    assert set(report.external) == {"https://pytorch.org/docs/", "https://cdn.example.org/lib.js",
                                    "https://fonts.example.org/css"}
    assert report.remote_assets == ["index.html: https://cdn.example.org/lib.js",
                                    "index.html: https://fonts.example.org/css"]

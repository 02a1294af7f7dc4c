from django.urls import path, re_path

from apps.blog import public, views

app_name = "blog"

urlpatterns = [
    path("settings/blog/", views.posts, name="posts"),
    path("settings/blog/comments/<int:comment_id>/", views.moderate, name="moderate"),
    # The public blog (apps.blog.public): no sign-in.
    path("blog/", public.index, name="index"),
    path("blog/rss.xml", public.rss, name="rss"),
    path("blog/atom.xml", public.atom, name="atom"),
    path("blog/sitemap.xml", public.sitemap, name="sitemap"),
    path("blog/images/<int:image_id>/", public.image, name="image"),
    path("blog/comments/<int:post_id>/", public.comment, name="comment"),
    re_path(
        r"^blog/(?P<language>[a-z]{2,3}(?:-[a-z0-9]{2,8})*)/(?P<slug>[-\w]+)/$",
        public.post_in,
        name="post_in",
    ),
    re_path(r"^blog/(?P<slug>[-\w]+)/$", public.post_page, name="post"),
]

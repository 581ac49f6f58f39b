//! What a connection is doing, as its timeouts ([`super::TimedIo`]) need
//! to know: whether a request has come yet, and whether one is open now.
//!
//! An HTTP/2 connection is busy only while it has an open stream: a client
//! with no request open that keeps sending frames (PINGs, SETTINGS,
//! WINDOW_UPDATEs) is idle all the same, so it cannot hold a connection
//! slot forever by pinging. The count is kept by [`Tracked`], the service
//! that serves the connection's requests: a request is open from its head
//! until its response body is dropped (sent in full, reset or abandoned).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll, ready};

use http_body::Frame;

use super::ConnCloser;

/// One connection's activity, shared by its socket and its requests.
#[derive(Debug, Default)]
pub struct Activity {
    open: AtomicUsize,
    http2: AtomicBool,
    served: AtomicBool,
}

impl Activity {
    /// A request's head has arrived: open until the guard drops.
    fn open(self: &Arc<Self>, http2: bool) -> Open {
        self.open.fetch_add(1, Ordering::Relaxed);
        if http2 {
            self.http2.store(true, Ordering::Relaxed);
        }
        self.served.store(true, Ordering::Relaxed);
        Open(self.clone())
    }

    /// An HTTP/2 connection that has served a request and has none open.
    #[cfg(test)]
    pub(super) fn http2_between_requests() -> Arc<Activity> {
        let activity = Arc::new(Activity::default());
        drop(activity.open(true));
        activity
    }

    /// Whether a complete request head has arrived on the connection.
    pub fn served(&self) -> bool {
        self.served.load(Ordering::Relaxed)
    }

    /// Whether bytes moving on the connection show progress: always over
    /// HTTP/1 (and before the first request), over HTTP/2 only while a
    /// stream is open.
    pub fn busy(&self) -> bool {
        !self.http2.load(Ordering::Relaxed) || self.open.load(Ordering::Relaxed) > 0
    }
}

/// An open request: closed when dropped.
#[derive(Debug)]
struct Open(Arc<Activity>);

impl Drop for Open {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The service of one connection's requests: each request carries the
/// connection's [`ConnCloser`], and is counted open in its [`Activity`]
/// until its response body is dropped.
#[derive(Debug, Clone)]
pub struct Tracked<S> {
    inner: S,
    closer: ConnCloser,
    activity: Arc<Activity>,
}

impl<S> Tracked<S> {
    /// `inner` serving the connection of `closer` and `activity`.
    pub fn new(inner: S, closer: ConnCloser, activity: Arc<Activity>) -> Tracked<S> {
        Tracked {
            inner,
            closer,
            activity,
        }
    }
}

impl<S, B, R> tower::Service<http::Request<B>> for Tracked<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<R>>,
{
    type Response = http::Response<TrackedBody<R>>;
    type Error = S::Error;
    type Future = TrackedFuture<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: http::Request<B>) -> Self::Future {
        let open = self.activity.open(req.version() == http::Version::HTTP_2);
        req.extensions_mut().insert(self.closer.clone());
        TrackedFuture {
            inner: self.inner.call(req),
            open: Some(open),
        }
    }
}

pin_project_lite::pin_project! {
    /// A request being answered: open until its body is dropped.
    pub struct TrackedFuture<F> {
        #[pin]
        inner: F,
        open: Option<Open>,
    }
}

impl<F, R, E> Future for TrackedFuture<F>
where
    F: Future<Output = Result<http::Response<R>, E>>,
{
    type Output = Result<http::Response<TrackedBody<R>>, E>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = ready!(this.inner.poll(cx))?;
        let open = this.open.take();
        Poll::Ready(Ok(response.map(|inner| TrackedBody { inner, _open: open })))
    }
}

pin_project_lite::pin_project! {
    /// A response body whose request stays open until it is dropped.
    pub struct TrackedBody<B> {
        #[pin]
        inner: B,
        _open: Option<Open>,
    }
}

impl<B: http_body::Body> http_body::Body for TrackedBody<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        self.project().inner.poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use tower::{Service as _, ServiceExt as _};

    use super::{Activity, Tracked};
    use crate::transport::ConnCloser;

    /// An HTTP/2 request is open from its head until its response body is
    /// dropped; HTTP/1 is always busy.
    #[tokio::test]
    async fn a_request_is_open_until_its_body_is_dropped() {
        let activity = Arc::new(Activity::default());
        let mut service = Tracked::new(
            tower::service_fn(|_: http::Request<()>| async {
                Ok::<_, std::convert::Infallible>(http::Response::new(()))
            }),
            ConnCloser::default(),
            activity.clone(),
        );
        assert!(!activity.served());
        assert!(activity.busy(), "before the first request");
        let mut h2 = http::Request::new(());
        *h2.version_mut() = http::Version::HTTP_2;
        let future = service.ready().await.unwrap().call(h2);
        assert!(activity.served());
        assert!(activity.busy(), "answering");
        let response = future.await.unwrap();
        assert!(activity.busy(), "sending the answer");
        drop(response);
        assert!(!activity.busy(), "no stream open");
        let http1 = Arc::new(Activity::default());
        let mut service = Tracked::new(
            tower::service_fn(|_: http::Request<()>| async {
                Ok::<_, std::convert::Infallible>(http::Response::new(()))
            }),
            ConnCloser::default(),
            http1.clone(),
        );
        drop(service.call(http::Request::new(())).await.unwrap());
        assert!(http1.served() && http1.busy(), "HTTP/1 keeps its behaviour");
    }
}

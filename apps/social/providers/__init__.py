"""The social networks posts go to, one module per network, each speaking its own protocol behind
the one interface of `base` (`Network`) and answering in the app's errors."""

// Driver tests land here.
